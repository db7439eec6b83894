//===- FakeFenceApp.cpp - An application that needs fences, for tests -----===//
//
// Stands in for a CUDA application built through incant with the pass
// "fences", in the tests of `incant fences` (test/fences): it carries the
// manifest of unit 0123456789abcdef (the source test/fences/Inputs/fake.cu,
// eight fence sites in the kernel it launches and the device function that
// calls, two in a kernel it never launches), reaches the stand-in driver
// (unittests/Intercept/FakeCuda.cpp) the CUDA runtime's way, launches its
// kernel once, and reads the fence mask the injected library set:
//
//   incant-fakefenceapp needs S[:any|:sc],...   correct only if each site S
//       is on with a fence of .gpu scope (:any: any kind; :sc: sc.gpu)
//   incant-fakefenceapp needs ... flaky P       without them, wrong in P of
//       100 runs (by INCANT_SEED's hash)
//   incant-fakefenceapp needs ... breaks FILE N from its Nth run on (runs
//       counted in FILE), wrong whatever the fences (the GPU's conditions
//       changed under a search)
//   incant-fakefenceapp unstable                always wrong
//
// Built twice: as incant-fakefenceapp (no fences of its own) and, with
// FAKE_FENCED, as incant-fakefenceapp-fenced, whose manifest records the
// two fences the source needs (after the CAS and after the store of total).
//
//===----------------------------------------------------------------------===//
#include "FakeRuntime.h"
#include "incant/Support/Hash.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define SITE(ID, FN, KIND, PTX, LINE, COL)                                     \
  "{\"id\":" #ID ",\"pass\":\"fences\",\"function\":\"" FN "\",\"kind\":"     \
  "\"after " KIND "\",\"ptx_line\":" #PTX ",\"file\":\"" FAKE_SOURCE           \
  "\",\"line\":" #LINE ",\"col\":" #COL "}"
#define ORDER(LINE, AFTER_LINE, AFTER_COL)                                     \
  "{\"function\":\"_Z3addi\",\"kind\":\"membar.gl\",\"ptx_line\":0,"           \
  "\"file\":\"" FAKE_SOURCE "\",\"line\":" #LINE ",\"col\":3,\"after_file\":"  \
  "\"" FAKE_SOURCE "\",\"after_line\":" #AFTER_LINE ",\"after_col\":"          \
  #AFTER_COL "}"

#ifdef FAKE_FENCED
#define ORDERS ",\"orders\":[" ORDER(7, 6, 10) "," ORDER(9, 9, 9) "]"
#else
#define ORDERS ""
#endif

// The manifest as the instrumenting build embeds it (runtime/incant_control.h).
extern "C" __attribute__((used)) const char incant_fake_manifest[] =
    "INCANT-UNIT1\n"
    "{\"unit\":\"0123456789abcdef\",\"target\":\"sm_90\",\"ptx_file\":"
    "\"fake.ptx\",\"source\":\"" FAKE_SOURCE "\",\"passes\":[\"randomise\","
    "\"fences\"],\"functions\":["
    "{\"name\":\"_Z3addi\",\"entry\":false,\"remapped\":false},"
    "{\"name\":\"fake_kernel\",\"entry\":true,\"remapped\":true,\"calls\":"
    "[\"_Z3addi\"]},"
    "{\"name\":\"unused_kernel\",\"entry\":true,\"remapped\":false}],"
    "\"sites\":["
    "{\"id\":0,\"pass\":\"randomise\",\"function\":\"fake_kernel\",\"kind\":"
    "\"%tid.x read\",\"ptx_line\":52,\"file\":\"\",\"line\":0,\"col\":0},"
    SITE(1, "_Z3addi", "atom.global.cas.b32", 22, 6, 10) ","
    SITE(2, "_Z3addi", "ld.global.u32", 25, 8, 11) ","
    SITE(3, "_Z3addi", "st.global.u32", 27, 9, 9) ","
    SITE(4, "_Z3addi", "atom.global.exch.b32", 30, 10, 3) ","
    SITE(5, "fake_kernel", "ld.global.u32", 55, 14, 11) ","
    SITE(6, "fake_kernel", "st.global.u32", 60, 16, 18) ","
    SITE(7, "fake_kernel", "ld.global.u32", 64, 18, 22) ","
    SITE(8, "fake_kernel", "st.global.u32", 66, 18, 20) ","
    SITE(9, "unused_kernel", "ld.global.u32", 75, 21, 47) ","
    SITE(10, "unused_kernel", "st.global.u32", 76, 21, 45)
    "],\"notes\":[]" ORDERS "}";

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return 2;
  fakeruntime::Driver D;
  if (!D.open()) {
    std::printf("fake: no libcuda.so.1\n");
    return 2;
  }
  fakeruntime::launchFakeKernel(D);
  void *H = D.Lib;
  size_t Size = 0;
  auto Global = reinterpret_cast<const void *(*)(const char *, size_t *)>(
      dlsym(H, "fakecuda_global"));
  const auto *Mask = static_cast<const uint32_t *>(
      Global("__incant_fmask_0123456789abcdef", &Size));
  const size_t Words = Size / 4 / 4;
  // The strongest kind (lowest index) switched on at site S, or 4.
  auto KindAt = [&](unsigned S) {
    for (unsigned K = 0; K < 4; ++K)
      if (S / 32 < Words && (Mask[K * Words + S / 32] >> (S % 32) & 1))
        return K;
    return 4u;
  };
  std::string Mode = Argv[1];
  if (Mode == "unstable") {
    std::printf("fake: WRONG: whatever the fences\n");
    return 1;
  }
  if (Mode != "needs" || Argc < 3)
    return 2;
  std::string Missing;
  for (char *Tok = std::strtok(Argv[2], ","); Tok;
       Tok = std::strtok(nullptr, ",")) {
    char *Colon = std::strchr(Tok, ':');
    unsigned Weakest = 1; // .gpu scope
    if (Colon) {
      *Colon = 0;
      Weakest = !std::strcmp(Colon + 1, "any") ? 3 : 0;
    }
    unsigned S = unsigned(std::atoi(Tok));
    if (KindAt(S) > Weakest)
      Missing += (Missing.empty() ? "" : ",") + std::to_string(S);
  }
  if (Argc == 6 && !std::strcmp(Argv[3], "breaks")) {
    unsigned Runs = 0;
    if (FILE *F = std::fopen(Argv[4], "r")) {
      if (std::fscanf(F, "%u", &Runs) != 1)
        Runs = 0;
      std::fclose(F);
    }
    ++Runs;
    if (FILE *F = std::fopen(Argv[4], "w")) {
      std::fprintf(F, "%u\n", Runs);
      std::fclose(F);
    }
    if (Runs >= unsigned(std::atoi(Argv[5]))) {
      std::printf("fake: WRONG: whatever the fences (run %u)\n", Runs);
      return 1;
    }
  }
  bool Wrong = !Missing.empty();
  if (Wrong && Argc == 5 && !std::strcmp(Argv[3], "flaky")) {
    const char *Seed = std::getenv("INCANT_SEED");
    Wrong = incant::fnv1a64(Seed ? Seed : "") % 100 <
            unsigned(std::atoi(Argv[4]));
  }
  if (Wrong)
    std::printf("fake: WRONG: no fence at site %s\n", Missing.c_str());
  else
    std::printf("fake: ok\n");
  return Wrong ? 1 : 0;
}
