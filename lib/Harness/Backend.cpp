//===- Backend.cpp - The backend interface's anchor -------------------------===//
#include "incant/Harness/Backend.h"

namespace incant::harness {

PreparedTest::~PreparedTest() = default;

Backend::~Backend() = default;

std::vector<Expected<std::shared_ptr<const PreparedTest>>>
Backend::prepare(const std::vector<RunRequest> &Reqs,
                 const std::vector<DiagnosticEngine *> &) {
  return std::vector<Expected<std::shared_ptr<const PreparedTest>>>(
      Reqs.size(), std::shared_ptr<const PreparedTest>());
}

} // namespace incant::harness
