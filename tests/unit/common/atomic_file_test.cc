#include "services/common/atomic_file.h"

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

class AtomicFileTest : public ::testing::Test {
 protected:
  // A directory of this test's own (other checkouts may run the same test at the same time).
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "atomic_file_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << "mkdtemp " << pattern;
    dir_ = pattern;
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
};

TEST_F(AtomicFileTest, ReplacesTheWholeFileAndLeavesNoTemporary) {
  const std::filesystem::path path = dir_ / "state.bin";
  ASSERT_TRUE(WriteFileAtomically(path, std::string("first\0one", 9)).ok());
  ASSERT_TRUE(WriteFileAtomically(path, "second").ok());
  absl::StatusOr<std::string> read = ReadWholeFile(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "second");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state.bin.tmp"));

  ASSERT_TRUE(WriteFileAtomically(path, std::string("a\0b", 3)).ok());
  EXPECT_EQ(ReadWholeFile(path).value(), std::string("a\0b", 3));
}

TEST_F(AtomicFileTest, ErrorsNameTheFile) {
  const std::filesystem::path missing = dir_ / "no-such-dir" / "state.bin";
  absl::Status written = WriteFileAtomically(missing, "x");
  EXPECT_EQ(written.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(written.message().find("no-such-dir"), std::string::npos) << written;

  absl::StatusOr<std::string> read = ReadWholeFile(dir_ / "absent.bin");
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(read.status().message().find("absent.bin"), std::string::npos) << read.status();
}

}  // namespace
}  // namespace crawler
