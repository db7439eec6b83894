//===- ParamsJson.h - Run parameters as JSON keys ------------------*- C++ -*-===//
//
// The one spelling of the launch-independent run parameters and the
// incantations in JSON (snake_case keys), shared by `incant run --json` and
// the campaign store's parameter key.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_HARNESS_PARAMSJSON_H
#define INCANT_HARNESS_PARAMSJSON_H

#include "incant/Harness/Params.h"

#include <nlohmann/json.hpp>

namespace incant::harness {

/// Sets stride, seed, loop_bound, loc_distance and every incantation's keys
/// in \p J (an object).
void addParamsJson(const RunParams &P, nlohmann::json &J);

} // namespace incant::harness

#endif // INCANT_HARNESS_PARAMSJSON_H
