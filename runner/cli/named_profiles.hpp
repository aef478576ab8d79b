#pragma once
// The GPU catalog shipped beside the profiles (profiles/datasheets/catalog.json) and the profiles a
// command line names: a shipped or user profile by name or file, else a catalogued GPU's profile
// derived from its datasheet (core/costmodel/datasheet.hpp).

#include <string>
#include <vector>

#include "core/costmodel/datasheet.hpp"

namespace crossover {

/// The catalog file beside the shipped profiles ("" when none was found).
std::string catalog_file();

/// The shipped catalog, read as a user's file; throws std::runtime_error naming the file and what
/// is wrong, or that there is none.
DatasheetCatalog load_catalog();

/// The catalog's measured cards with their shipped profiles (each card's `measured`).
std::vector<MeasuredCard> measured_cards(const DatasheetCatalog& catalog);

/// The profile a --profile or --predict cuda= names: a file or shipped profile (find_profile), else
/// the profile of the catalogued GPU of that name, derived from its datasheet. Throws
/// std::runtime_error naming the shipped profiles and the catalog's GPUs when it is none of them.
MachineProfile load_named_profile(const std::string& name_or_path);

/// load_named_profile, and a file's profile without a GPU refused (load_gpu_profile): the one
/// `run --predict cuda=NAME` needs.
MachineProfile load_named_gpu_profile(const std::string& name_or_path);

}  // namespace crossover
