// Micro-benchmarks of lib/warc on websim pages (websim_corpus.h): one gzip member per record with
// zlib at several settings and with the library's GzipCompressor (ISA-L at level 1, libdeflate
// above) at several levels (the data behind gzip_member.h's choice), and WarcWriter::Write end
// to end (serialisation, block digest, compression, write to a file in $TMPDIR).
//
// Counters: ratio = compressed / uncompressed bytes; bytes/s count the uncompressed record.
#include <unistd.h>
#include <zlib.h>

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bench/micro/websim_corpus.h"
#include "benchmark/benchmark.h"
#include "lib/clock/fake_clock.h"
#include "lib/warc/warc_record.h"
#include "lib/warc/warc_writer.h"

namespace crawler::bench {
namespace {

warc::WarcRecord ResponseRecord(const CorpusPage& page) {
  warc::WarcRecord r;
  r.type = warc::RecordType::kResponse;
  r.record_id = "<urn:uuid:00000000-0000-4000-8000-000000000000>";
  r.date = absl::FromUnixSeconds(1'700'000'000);
  r.target_uri = page.url;
  r.content_type = std::string(warc::kHttpResponseContentType);
  r.ip_address = "127.0.0.1";
  r.payload_digest = "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  r.block = page.http_response;
  return r;
}

// The corpus pages' response records, serialised (uncompressed).
std::vector<std::string> SerializedResponseRecords() {
  std::vector<std::string> records;
  for (const CorpusPage& page : WebsimCorpus().pages) {
    records.push_back(warc::SerializeRecord(ResponseRecord(page)));
  }
  return records;
}

// zlib directly, one gzip member per record, with args level, windowBits, memLevel, strategy
// (0 default, 1 Z_FILTERED, 2 Z_HUFFMAN_ONLY, 3 Z_RLE) and reuse (1: one stream, deflateReset per
// record; 0: deflateInit2 ... deflateEnd per record, as the writer did before it kept its
// compressors).
void BM_DeflatePerRecord(benchmark::State& state) {
  const std::vector<std::string> records = SerializedResponseRecords();
  const int level = static_cast<int>(state.range(0));
  const int window_bits = static_cast<int>(state.range(1));
  const int mem_level = static_cast<int>(state.range(2));
  const int strategy = static_cast<int>(state.range(3));
  const bool reuse = state.range(4) != 0;
  z_stream reused{};
  if (reuse) deflateInit2(&reused, level, Z_DEFLATED, window_bits + 16, mem_level, strategy);
  std::string out;
  size_t i = 0;
  size_t in_bytes = 0;
  size_t out_bytes = 0;
  for (auto _ : state) {
    const std::string& record = records[i];
    z_stream fresh{};
    z_stream* zs = &reused;
    if (reuse) {
      deflateReset(zs);
    } else {
      zs = &fresh;
      deflateInit2(zs, level, Z_DEFLATED, window_bits + 16, mem_level, strategy);
    }
    out.resize(deflateBound(zs, record.size()));
    zs->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(record.data()));
    zs->avail_in = static_cast<uInt>(record.size());
    zs->next_out = reinterpret_cast<Bytef*>(out.data());
    zs->avail_out = static_cast<uInt>(out.size());
    if (deflate(zs, Z_FINISH) != Z_STREAM_END) state.SkipWithError("deflate failed");
    out_bytes += zs->total_out;
    if (!reuse) deflateEnd(zs);
    in_bytes += record.size();
    if (++i == records.size()) i = 0;
  }
  if (reuse) deflateEnd(&reused);
  state.SetBytesProcessed(static_cast<int64_t>(in_bytes));
  state.SetItemsProcessed(state.iterations());
  state.counters["ratio"] = in_bytes ? static_cast<double>(out_bytes) / in_bytes : 0;
}
BENCHMARK(BM_DeflatePerRecord)
    ->ArgNames({"level", "wbits", "mem", "strategy", "reuse"})
    ->Args({6, 15, 8, Z_DEFAULT_STRATEGY, 0})
    ->Args({1, 15, 8, Z_DEFAULT_STRATEGY, 0})
    ->Args({1, 15, 8, Z_DEFAULT_STRATEGY, 1})
    ->Args({2, 15, 8, Z_DEFAULT_STRATEGY, 1})
    ->Args({3, 15, 8, Z_DEFAULT_STRATEGY, 1})
    ->Args({1, 15, 9, Z_DEFAULT_STRATEGY, 1})
    ->Args({1, 15, 6, Z_DEFAULT_STRATEGY, 1})
    ->Args({1, 13, 8, Z_DEFAULT_STRATEGY, 1})
    ->Args({1, 15, 8, Z_RLE, 1})
    ->Args({1, 15, 8, Z_HUFFMAN_ONLY, 1});

// Compresses `records` in turn, one gzip member per iteration, with a compressor of level
// state.range(0); sets bytes, items and the compression ratio. Returns the input bytes.
size_t CompressInTurn(benchmark::State& state, const std::vector<std::string>& records) {
  warc::GzipCompressor compressor(static_cast<int>(state.range(0)));
  size_t i = 0;
  size_t in_bytes = 0;
  size_t out_bytes = 0;
  for (auto _ : state) {
    const std::string gz = compressor.Compress(records[i]);
    out_bytes += gz.size();
    in_bytes += records[i].size();
    if (++i == records.size()) i = 0;
  }
  state.SetBytesProcessed(static_cast<int64_t>(in_bytes));
  state.SetItemsProcessed(state.iterations());
  state.counters["ratio"] = in_bytes ? static_cast<double>(out_bytes) / in_bytes : 0;
  return in_bytes;
}

// The library's compressor (level 1: ISA-L igzip; 2-9: libdeflate), reused across records as
// WarcWriter does; arg: level.
void BM_GzipCompressor(benchmark::State& state) {
  const std::vector<std::string> records = SerializedResponseRecords();
  CompressInTurn(state, records);
}
BENCHMARK(BM_GzipCompressor)->Arg(1)->Arg(2)->Arg(3)->Arg(6);

// The same for the small records each page also has: its request record (WARC headers and the
// HTTP request head, ~700 bytes), where a compressor's per-call set-up dominates; arg: level.
void BM_GzipCompressorRequestRecord(benchmark::State& state) {
  const Corpus& corpus = WebsimCorpus();
  std::vector<std::string> records;
  for (const CorpusPage& page : corpus.pages) {
    warc::WarcRecord r;
    r.type = warc::RecordType::kRequest;
    r.record_id = "<urn:uuid:9f0b3c2e-5d1a-4c6b-8e7f-0a1b2c3d4e5f>";
    r.date = absl::FromUnixSeconds(1'700'000'000);
    r.target_uri = page.url;
    r.content_type = std::string(warc::kHttpRequestContentType);
    r.concurrent_to = "<urn:uuid:1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5>";
    r.warcinfo_id = "<urn:uuid:00000000-0000-4000-8000-000000000000>";
    r.block = absl::StrCat("GET ", page.url.substr(page.url.find('/', 8)),
                           " HTTP/1.1\r\nHost: ", page.url.substr(7, page.url.find('/', 8) - 7),
                           "\r\nUser-Agent: crawler/0.1\r\nAccept: */*\r\n"
                           "Accept-Encoding: gzip, deflate, br\r\n\r\n");
    records.push_back(warc::SerializeRecord(r));
  }
  const size_t in_bytes = CompressInTurn(state, records);
  state.counters["record_bytes"] =
      state.iterations() ? static_cast<double>(in_bytes) / state.iterations() : 0;
}
BENCHMARK(BM_GzipCompressorRequestRecord)->Arg(1)->Arg(2);

// The writer's whole per-record path, as PageProcessor calls it for a response record.
void BM_WarcWriterWrite(benchmark::State& state) {
  const Corpus& corpus = WebsimCorpus();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / absl::StrCat("micro_bench_warc_", getpid());
  FakeClock clock(absl::FromUnixSeconds(1'700'000'000));
  warc::WarcWriterOptions options;
  options.directory = dir.string();
  absl::StatusOr<std::unique_ptr<warc::WarcWriter>> writer =
      warc::WarcWriter::Open(options, clock, /*seed=*/1);
  if (!writer.ok()) {
    state.SkipWithError(writer.status().ToString().c_str());
    return;
  }
  size_t i = 0;
  size_t bytes = 0;
  for (auto _ : state) {
    warc::WarcRecord record = ResponseRecord(corpus.pages[i]);
    record.record_id.clear();
    bytes += record.block.size();
    absl::StatusOr<std::string> id = (*writer)->Write(std::move(record));
    if (!id.ok()) state.SkipWithError(id.status().ToString().c_str());
    if (++i == corpus.pages.size()) i = 0;
  }
  (*writer)->Close().IgnoreError();
  std::filesystem::remove_all(dir);
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WarcWriterWrite);

}  // namespace
}  // namespace crawler::bench
