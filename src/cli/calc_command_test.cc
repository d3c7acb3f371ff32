#include "cli/calc_command.h"

#include <gtest/gtest.h>

#include <sstream>

#include "calc/test_catalog.h"

namespace ridge::cli {
namespace {

struct CliRun {
  int code;
  std::string out, err;
};

CliRun calc(std::vector<std::string> args) {
  std::ostringstream out, err;
  int code = run_calc(args, calc::testing::registry(), calc::testing::real_catalog(), out, err);
  return {code, out.str(), err.str()};
}

TEST(CalcCommand, EqualsSignAndSpaceFormsAgree) {
  CliRun a = calc({"fit", "--model=llama-3.1-8b", "--gpu=h100-sxm", "--context=8192", "--json"});
  CliRun b = calc({"fit", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--context", "8192", "--json"});
  EXPECT_EQ(a.code, 0);
  EXPECT_EQ(a.out, b.out);
}

TEST(CalcCommand, UnderscoreFlagsAreAccepted) {
  CliRun r = calc({"fit", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--context", "8192", "--kv_dtype", "fp8"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("KV cache in fp8"), std::string::npos);
}

TEST(CalcCommand, CountsPrintTheExactIntegerUsed) {
  CliRun r = calc({"fit", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--context", "32Ki"});
  EXPECT_NE(r.out.find("32,768 tokens (from '32Ki')"), std::string::npos) << r.out;
}

TEST(CalcCommand, MissingValueAndDuplicateFlag) {
  EXPECT_EQ(calc({"fit", "--model"}).code, 2);
  CliRun dup = calc({"fit", "--gpu", "h100-sxm", "--gpu", "h200"});
  EXPECT_EQ(dup.code, 2);
  EXPECT_NE(dup.err.find("given twice"), std::string::npos);
}

TEST(CalcCommand, HelpListsEveryParameter) {
  CliRun r = calc({"decode", "--help"});
  for (const char* flag : {"--model", "--config", "--gpu", "--tp", "--batch", "--context", "--weights-dtype", "--kv-dtype"}) {
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace ridge::cli
