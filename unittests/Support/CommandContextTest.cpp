//===- CommandContextTest.cpp - One command's messages and exit code ------===//
#include "incant/Support/CommandContext.h"
#include "incant/Support/CudaDevice.h"
#include "incant/Support/FindProgram.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace incant;

namespace {

TEST(CommandContextTest, ExitCodesFromOutcomeAndKind) {
  EXPECT_EQ(CommandContext::done(Outcome::Clean), 0);
  EXPECT_EQ(CommandContext::done(Outcome::Found), 1);
  EXPECT_EQ(CommandContext::failed(ErrorKind::Input), 2);
  EXPECT_EQ(CommandContext::failed(ErrorKind::Device), 3);
  EXPECT_EQ(CommandContext::failed(ErrorKind::Internal), 3);
}

TEST(CommandContextTest, FailPrintsOneMessageWithThePrefix) {
  std::ostringstream Out, Err;
  CommandContext Ctx(Out, Err, "incant race: ");
  EXPECT_EQ(Ctx.fail(ErrorKind::Device, "no CUDA driver"), 3);
  EXPECT_EQ(Err.str(), "incant race: no CUDA driver\n");
  EXPECT_EQ(Out.str(), "");
  CommandContext Plain(Out, Err);
  Err.str("");
  EXPECT_EQ(Plain.fail(ErrorKind::Input, "bad"), 2);
  EXPECT_EQ(Err.str(), "incant: error: bad\n");
}

TEST(CommandContextTest, OutputsCheckedBeforeTheWork) {
  std::ostringstream Out, Err;
  CommandContext Ctx(Out, Err);
  std::string Dir = ::testing::TempDir() + "/ctx-" + std::to_string(getpid());
  std::filesystem::create_directories(Dir);
  std::string File = Dir + "/file";
  std::ofstream(File) << "x";
  // Standard output and "no file" need no check; a path under a regular
  // file can be written by no one.
  EXPECT_EQ(Ctx.checkOutputs({"", "-", Dir + "/out.json"}), 0);
  EXPECT_FALSE(std::filesystem::exists(Dir + "/out.json"));
  EXPECT_EQ(Ctx.checkOutputs({Dir + "/ok", File + "/out"}), 2);
  EXPECT_NE(Err.str().find("cannot write"), std::string::npos) << Err.str();
  std::filesystem::remove_all(Dir);
}

TEST(CommandContextTest, AnOutputThatIsAnInputIsRefused) {
  std::ostringstream Out, Err;
  CommandContext Ctx(Out, Err);
  std::string Dir =
      ::testing::TempDir() + "/ctx-in-" + std::to_string(getpid());
  std::filesystem::create_directories(Dir);
  std::string In = Dir + "/k.ptx";
  std::ofstream(In) << "x";
  std::filesystem::create_symlink("k.ptx", Dir + "/link.ptx");
  EXPECT_EQ(Ctx.checkOutputs({Dir + "/out.ptx"}, {In}), 0);
  EXPECT_EQ(Ctx.checkOutputs({Dir + "/link.ptx"}, {In}), 2);
  EXPECT_NE(Err.str().find("is the input"), std::string::npos) << Err.str();
  std::ifstream F(In);
  std::string Text((std::istreambuf_iterator<char>(F)), {});
  EXPECT_EQ(Text, "x");
  std::filesystem::remove_all(Dir);
}

TEST(CommandContextTest, ToolNamedByItsVariable) {
  ::setenv("INCANT_PTXAS", "/nonexistent/ptxas", 1);
  EXPECT_EQ(findCudaProgram("ptxas"), "");
  ::setenv("INCANT_PTXAS", "/bin/sh", 1);
  EXPECT_EQ(findCudaProgram("ptxas"), "/bin/sh");
  ::unsetenv("INCANT_PTXAS");
}

TEST(CommandContextTest, NoDriverIsADeviceError) {
  // The first answer of the process stands: this test asks first.
  ::setenv("INCANT_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  const std::string &Why = missingCudaDevice();
  EXPECT_NE(Why.find("no CUDA driver (/nonexistent/libcuda.so.1: "),
            std::string::npos)
      << Why;
  std::ostringstream Out, Err;
  CommandContext Ctx(Out, Err);
  EXPECT_EQ(Ctx.requireCudaDevice("./app"), 3);
  EXPECT_NE(Err.str().find("incant: error: ./app needs a CUDA device: no CUDA "
                           "driver"),
            std::string::npos)
      << Err.str();
  ::unsetenv("INCANT_LIBCUDA");
}

} // namespace
