//===- Backend.cpp - The backend interface's anchor -------------------------===//
#include "incant/Harness/Backend.h"

namespace incant::harness {
Backend::~Backend() = default;
} // namespace incant::harness
