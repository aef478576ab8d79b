#include "runner/machine/machine_record.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/files/user_files.hpp"
#include "core/text/text.hpp"

namespace crossover {

std::optional<MachineRecord> machine_record_from_environment() {
  const char* value = std::getenv(kMachineRecordVariable);
  if (value == nullptr || *value == '\0') return std::nullopt;
  const std::string file = value;
  const auto refused = [&](const std::string& why) {
    return std::runtime_error(std::string(kMachineRecordVariable) + "=" + printable_text(file) +
                              ": " + why +
                              "; name the env.json of an earlier run on this machine, or unset "
                              "the variable to measure the machine");
  };
  Environment record;
  try {
    record = environment_from_json(
        read_json_file<nlohmann::ordered_json>(file, kMaxRecordBytes, "an env.json"), file);
  } catch (const UserFileError& e) {
    throw refused(e.what());
  }
  std::vector<std::string> missing;
  if (!record.blas.matmul_1024_gflops) missing.push_back("blas.matmul_1024_gflops");
  if (record.peak_gflops.empty()) missing.push_back("peak_gflops");
  if (!record.profile) missing.push_back("profile");
  if (!record.reference.before) missing.push_back("reference.before");
  if (!missing.empty()) throw refused("it records no " + join(missing));
  return MachineRecord{file, std::move(record)};
}

Found machine_record_mismatch(const Environment& here, const MachineRecord& reused) {
  std::vector<std::string> differences;
  const auto differ = [&](const std::string& what, const std::string& there,
                          const std::string& mine) {
    if (there != mine)
      differences.push_back(what + " " + printable_text(there.empty() ? "unrecorded" : there) +
                            " there, " + printable_text(mine.empty() ? "unknown" : mine) + " here");
  };
  const auto cores = [](const std::optional<std::int64_t>& n) {
    return n ? std::to_string(*n) : std::string();
  };
  differ("CPU", reused.env.cpu.model, here.cpu.model);
  differ("logical cores", cores(reused.env.cpu.logical_cores), cores(here.cpu.logical_cores));
  differ("LibTorch", reused.env.libtorch.version, here.libtorch.version);
  if (differences.empty()) return std::nullopt;
  return Problem(std::string(kMachineRecordVariable) + "=" + printable_text(reused.file) +
                 " was measured on another machine (" + join(differences, "; ") +
                 "): its BLAS rate, peak and profile are not this machine's. Name the env.json of "
                 "a run on this machine, or unset the variable to measure the machine");
}

Found machine_record_in_output(const std::string& record_file, const std::string& out_dir) {
  if (record_file.empty() || out_dir.empty()) return std::nullopt;
  std::error_code error;
  const auto folder = std::filesystem::weakly_canonical(out_dir, error);
  const auto file = std::filesystem::weakly_canonical(record_file, error);
  if (error || file.parent_path() != folder) return std::nullopt;
  return Problem(std::string(kMachineRecordVariable) + "=" + printable_text(record_file) +
                 " is the env.json of this run's own folder, which the run replaces (--overwrite "
                 "moves it aside first): copy it out of " +
                 printable_text(out_dir) +
                 " and name the copy, or unset the variable to measure the machine");
}

void reuse_machine_record(Environment& record, const MachineRecord& reused) {
  record.blas.matmul_1024_gflops = reused.env.blas.matmul_1024_gflops;
  record.peak_gflops = reused.env.peak_gflops;
  record.profile = reused.env.profile;
  record.reference.before = reused.env.reference.before;
  record.machine_record = reused.file;
}

std::string machine_record_warning(const Environment& record) {
  if (record.machine_record.empty()) return "";
  return "This run did not measure its machine: the BLAS rate, the peak, the profile and the "
         "reference timings are those of " +
         record.machine_record + " (" + kMachineRecordVariable +
         "), so a change of the machine's speed during the run cannot be seen.";
}

}  // namespace crossover
