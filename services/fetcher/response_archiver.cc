#include "services/fetcher/response_archiver.h"

#include <utility>

namespace crawler::fetcher {

warc::WarcRecord ResponseRecord(const HttpResult& http, const std::string& uri, absl::Time date,
                                std::string record_id) {
  warc::WarcRecord response;
  response.type = warc::RecordType::kResponse;
  response.record_id = std::move(record_id);
  response.date = date;
  response.target_uri = uri;
  response.ip_address = http.remote_ip;
  response.content_type = std::string(warc::kHttpResponseContentType);
  response.truncated = http.truncated;
  return response;
}

void SetMessageBlock(warc::WarcRecord& response, const std::string& raw_head,
                     const std::string& body) {
  response.block.clear();
  response.block.reserve(raw_head.size() + body.size());
  response.block.append(raw_head);
  response.block.append(body);
}

void AppendRequestRecord(const HttpResult& http, const std::string& uri, absl::Time date,
                         const std::string& response_id, std::vector<warc::WarcRecord>& records) {
  if (http.request_head.empty()) return;
  warc::WarcRecord request;
  request.type = warc::RecordType::kRequest;
  request.date = date;
  request.target_uri = uri;
  request.content_type = std::string(warc::kHttpRequestContentType);
  request.concurrent_to = response_id;
  request.block = http.request_head;
  records.push_back(std::move(request));
}

}  // namespace crawler::fetcher
