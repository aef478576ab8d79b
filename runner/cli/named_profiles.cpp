#include "runner/cli/named_profiles.hpp"

#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>

#include "core/files/user_files.hpp"
#include "core/text/problem.hpp"
#include "core/text/text.hpp"
#include "runner/cli/command_support.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::string catalog_file() {
  const std::vector<ShippedProfile> shipped = shipped_profiles();
  if (shipped.empty()) return "";
  const fs::path file =
      fs::path(shipped.front().path).parent_path() / "datasheets" / "catalog.json";
  std::error_code error;
  return fs::exists(fs::symlink_status(file, error)) ? file.string() : "";
}

DatasheetCatalog load_catalog() {
  const std::string file = catalog_file();
  if (file.empty())
    throw std::runtime_error(
        "no GPU catalog (profiles/datasheets/catalog.json) was found beside this binary's "
        "profiles");
  // A file that cannot be read says so with its name; one that is not a catalog says that.
  Found unreadable;
  DatasheetCatalog catalog;
  const Found wrong = problem_of([&] {
    nlohmann::ordered_json json;
    unreadable = problem_of<UserFileError>(
        [&] { json = read_json_file<nlohmann::ordered_json>(file, kMiB, "a GPU catalog"); });
    if (!unreadable) catalog = catalog_from_json(json);
  });
  if (unreadable) throw std::runtime_error(unreadable->text);
  if (wrong) throw std::runtime_error(file + ": not a GPU catalog: " + wrong->text);
  return catalog;
}

std::vector<MeasuredCard> measured_cards(const DatasheetCatalog& catalog) {
  std::vector<MeasuredCard> out;
  for (const Datasheet& card : catalog.cards) {
    if (card.measured.empty()) continue;
    MachineProfile profile = load_profile(find_profile(card.measured));
    borrow_own_tensor_rates(profile, card, catalog.convolution_share);
    out.push_back({std::move(profile), card});
  }
  return out;
}

namespace {

// A catalogued GPU's profile, from its datasheet, with the catalog's file and the card's name.
MachineProfile catalogued_profile(const Datasheet& card, const DatasheetCatalog& catalog) {
  MachineProfile profile = datasheet_profile(card, measured_cards(catalog), catalog);
  profile.file = catalog_file() + " (" + card.name + ")";
  return profile;
}

// find_profile's file read with `load`, else the catalogued GPU of that name.
MachineProfile named_profile(const std::string& given,
                             MachineProfile (*load)(const std::string& path)) {
  std::string path;
  std::optional<MachineProfile> catalogued;  // a catalogued GPU's, before any file is read
  const Found none = problem_of<std::runtime_error>([&] {
    // A bare name of a catalogued GPU that no shipped profile has is that GPU, whatever this
    // folder holds of that name (find_profile says so for a shipped one).
    if (!is_profile_path(given)) {
      std::error_code error;
      const bool here = fs::exists(fs::symlink_status(given, error));
      bool shipped = false;
      for (const ShippedProfile& p : shipped_profiles())
        shipped =
            shipped || lower(given) == p.name || lower(given) == fs::path(p.path).stem().string();
      DatasheetCatalog catalog;
      if (here && !shipped) {
        // No catalog: the file is what was meant.
        (void)problem_of<std::runtime_error>([&] { catalog = load_catalog(); });
        if (const Datasheet* card = catalog.find(lower(given))) {
          static std::set<std::string> warned;  // once a name
          if (warned.insert(given).second)
            spdlog::warn(
                "{} names the catalogued GPU {}; this folder has something of that name "
                "too: give ./{} to read it as a profile",
                given, card->gpu, given);
          catalogued = catalogued_profile(*card, catalog);
          return;
        }
      }
    }
    path = find_profile(given);
  });
  if (catalogued) return *catalogued;
  if (none) {
    DatasheetCatalog catalog;
    if (const Found no = problem_of<std::runtime_error>([&] { catalog = load_catalog(); }))
      throw std::runtime_error(none->text + "; nor a catalogued GPU (" + no->text + ")");
    if (const Datasheet* card = catalog.find(lower(given)))
      return catalogued_profile(*card, catalog);
    std::vector<std::string> names;
    for (const Datasheet& card : catalog.cards) names.push_back(card.name);
    throw std::runtime_error(none->text + "; nor a GPU of the catalog (" + join(names) +
                             ", from their datasheets: crossover list)");
  }
  MachineProfile profile = load(path);
  // A shipped card measured no tensor-core rate: its datasheet's, at its own share of peak (no
  // catalog: FP32 stands in).
  (void)problem_of<std::runtime_error>([&] {
    const DatasheetCatalog catalog = load_catalog();
    for (const Datasheet& card : catalog.cards)
      if (!card.measured.empty() && find_profile(card.measured) == path)
        borrow_own_tensor_rates(profile, card, catalog.convolution_share);
  });
  return profile;
}

}  // namespace

MachineProfile load_named_profile(const std::string& given) {
  return named_profile(given, load_profile);
}

MachineProfile load_named_gpu_profile(const std::string& given) {
  return named_profile(given, load_gpu_profile);
}

}  // namespace crossover
