#include "runner/machine/packages.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <vector>

#include "core/files/user_files.hpp"

namespace crossover {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kMaxListBytes = 64ULL << 20;     // a package's file list
constexpr std::uint64_t kMaxStatusBytes = 256ULL << 20;  // every package's stanza
constexpr std::size_t kMaxLists = 100000;

// "libtorch1.13:amd64.list" -> "libtorch1.13".
std::string package_of_list(const fs::path& list) {
  const std::string stem = list.stem().string();
  return stem.substr(0, stem.find(':'));
}

bool lists(const std::string& text, const std::set<std::string>& paths) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (paths.count(line) != 0) return true;
  }
  return false;
}

// The Version of `package` in dpkg's status file ("" when it has none).
std::string version_of(const std::string& status, const std::string& package) {
  std::istringstream in(status);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Package: ", 0) == 0) inside = line.substr(9) == package;
    if (inside && line.rfind("Version: ", 0) == 0) return line.substr(9);
  }
  return "";
}

}  // namespace

DebianPackage debian_package(const std::string& file, const std::string& dpkg_dir) {
  std::set<std::string> paths = {file};
  std::error_code error;
  const fs::path real = fs::canonical(file, error);
  if (!error) paths.insert(real.string());
  std::vector<fs::path> candidates;
  for (auto it = fs::directory_iterator(dpkg_dir + "/info", error);
       !error && it != fs::directory_iterator() && candidates.size() < kMaxLists;
       it.increment(error)) {
    if (it->path().extension() == ".list") candidates.push_back(it->path());
  }
  // The packages named like the file first ("libtorch_cpu.so.1.13" -> libtorch1.13): reading
  // every list of a desktop's thousand packages took 0.4 s of every run's start, twice.
  const std::string name = fs::path(file).filename().string();
  const std::string stem = name.substr(0, name.find_first_of("_.-"));
  std::stable_partition(candidates.begin(), candidates.end(), [&](const fs::path& list) {
    return !stem.empty() && package_of_list(list).rfind(stem, 0) == 0;
  });
  DebianPackage found;
  for (const fs::path& list : candidates) {
    try {
      if (!lists(read_user_file(list.string(), kMaxListBytes, "a package's file list"), paths))
        continue;
      found.name = package_of_list(list);
      found.version = version_of(
          read_user_file(dpkg_dir + "/status", kMaxStatusBytes, "dpkg's status"), found.name);
    } catch (const UserFileError&) {
      continue;  // a list or status that cannot be read names no package
    }
    break;
  }
  return found;
}

}  // namespace crossover
