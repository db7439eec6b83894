//===- Campaign.h - A campaign's tests, shards and parameters ---*- C++ -*-===//
//
// What `incant campaign` (incant/Commands/CampaignCommand.h) takes from its
// inputs: the tests under folders and files, the shard i/N, and the text
// that names what a run was asked for (results with the same text are the
// same experiment, Store.h).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CAMPAIGN_CAMPAIGN_H
#define INCANT_CAMPAIGN_CAMPAIGN_H

#include "incant/Harness/Params.h"

#include <cstdint>
#include <string>
#include <vector>

namespace incant::campaign {

/// Every *.litmus file under \p Inputs (a file is taken as it is;
/// litmus::expandFolders), sorted and without duplicates. A missing input,
/// or a folder without tests, is reported in \p Error.
bool collectTests(const std::vector<std::string> &Inputs,
                  std::vector<std::string> &Files, std::string &Error);

/// Parses "i/N" into \p Index and \p Count; false with \p Error otherwise.
bool parseShard(const std::string &Text, uint32_t &Index, uint32_t &Count,
                std::string &Error);

/// The canonical text of what a run was asked for (backend and RunParams):
/// results with the same text are the same experiment.
std::string paramsKey(const std::string &Backend, const harness::RunParams &P);

} // namespace incant::campaign

#endif // INCANT_CAMPAIGN_CAMPAIGN_H
