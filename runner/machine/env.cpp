#include "runner/machine/env.hpp"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <dlfcn.h>
#include <sys/utsname.h>
#include <torch/cuda.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

#include "core/text/text.hpp"
#include "runner/hardware/blas.hpp"
#include "runner/hardware/cuda_seam.hpp"
#include "runner/hardware/devices.hpp"
#include "runner/hardware/energy.hpp"
#include "runner/hardware/memory.hpp"
#include "runner/hardware/nvml.hpp"
#include "runner/hardware/threads.hpp"
#include "runner/machine/packages.hpp"
#include "runner/machine/revision.hpp"

namespace crossover {
namespace {

std::string first_line_with(const std::string& path, const std::string& prefix) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) return "";
      const auto start = line.find_first_not_of(' ', colon + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  }
  return "";
}

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "BLAS_INFO=generic" and friends, from LibTorch's build configuration.
std::string build_setting(const std::string& config, const std::string& key) {
  const auto at = config.find(key + "=");
  if (at == std::string::npos) return "";
  const auto start = at + key.size() + 1;
  const auto end = config.find_first_of(", \n", start);
  return config.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buffer;
}

// The best of `trials` n x n float32 products on `device` after a warm-up one (none when
// `warm_up` is false: the threads are warm from an earlier product), in GFLOP/s.
double matmul_gflops(int n, const Device& device, int trials = 5, bool warm_up = true) {
  torch::NoGradGuard no_grad;
  const auto options = torch::TensorOptions().device(device.text());
  const torch::Tensor a = torch::randn({n, n}, options);
  const torch::Tensor b = torch::randn({n, n}, options);
  // The product's memory touched before (no page faults inside a timed product).
  torch::Tensor c = torch::zeros({n, n}, options);
  if (warm_up) torch::mm_out(c, a, b);  // thread pools, kernel selection
  synchronize_device(device);
  double best = 1e30;
  for (int i = 0; i < trials; ++i) {
    const auto start = std::chrono::steady_clock::now();
    torch::mm_out(c, a, b);
    synchronize_device(device);
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return 2.0 * n * n * static_cast<double>(n) / best / 1e9;
}

}  // namespace

namespace {

// The machine: its name, kernel and operating system.
Environment::Host host_record() {
  Environment::Host host;
  char hostname[256] = {};
  gethostname(hostname, sizeof hostname - 1);
  host.hostname = hostname;
  utsname uts{};
  if (uname(&uts) == 0)
    host.kernel = std::string(uts.sysname) + " " + uts.release + " " + uts.machine;
  std::ifstream os_release("/etc/os-release");
  for (std::string line; std::getline(os_release, line);) {
    if (line.rfind("PRETTY_NAME=", 0) == 0) host.os = line.substr(12);
  }
  std::string& os = host.os;
  if (os.size() >= 2 && os.front() == '"') os = os.substr(1, os.size() - 2);
  return host;
}

Environment::Cpu cpu_record() {
  Environment::Cpu cpu;
  cpu.model = first_line_with("/proc/cpuinfo", "model name");
  cpu.logical_cores = std::thread::hardware_concurrency();
  cpu.governor = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) == 3) cpu.load_average = {load[0], load[1], load[2]};
  return cpu;
}

// How this LibTorch was built: version, BLAS, CUDA, OpenMP, the fused kernels it has.
Environment::LibTorch libtorch_record() {
  const std::string config = at::show_config();
  Environment::LibTorch t;
  t.version = TORCH_VERSION;
  // The library file this process loaded, and the Debian package that installed it.
  Dl_info where{};
  const bool found =
      dladdr(reinterpret_cast<void*>(&at::show_config), &where) != 0 && where.dli_fname != nullptr;
  t.library = found ? where.dli_fname : "";
  const DebianPackage package = found ? debian_package(where.dli_fname) : DebianPackage{};
  t.package = package.name;
  t.package_version = package.version;
  t.blas_info = build_setting(config, "BLAS_INFO");
  t.use_cuda = build_setting(config, "USE_CUDA");
  t.use_cudnn = build_setting(config, "USE_CUDNN");
  t.use_openmp = build_setting(config, "USE_OPENMP");
  t.use_mkldnn = build_setting(config, "USE_MKLDNN");
  t.cxx11_abi = _GLIBCXX_USE_CXX11_ABI != 0;
  // The fused optimiser kernels (optimizer_impl "fused") this LibTorch has, as "adam/cuda".
  t.fused_kernels = probe_devices().fused_kernels;
  const std::string parallel = at::get_parallel_info();
  const auto backend = parallel.find("ATen parallel backend: ");
  if (backend != std::string::npos)
    t.parallel_backend = parallel.substr(backend + 23, parallel.find('\n', backend) - backend - 23);
  return t;
}

Environment::Threads threads_record() {
  const ThreadCounts threads = current_threads();
  Environment::Threads out;
  out.intra_op = threads.intra_op;
  out.inter_op = threads.inter_op;
  out.blas = threads.blas;
  const char* omp = std::getenv("OMP_NUM_THREADS");
  out.omp_num_threads = omp != nullptr ? omp : "";
  return out;
}

// The BLAS library LibTorch calls, and whether it is the reference one (40x too slow).
Environment::Blas blas_record(const std::string& blas_info, bool measure_peak) {
  const BlasInfo blas = detect_blas(blas_info);
  Environment::Blas out;
  out.kind = text_of(blas.kind);
  out.library = blas.library;
  out.version = blas.version;
  out.reference = blas.is_reference();
  // The reference BLAS runs a 1024 product in about half a second: one, not four.
  if (measure_peak)
    out.matmul_1024_gflops = out.reference ? matmul_gflops(1024, Device::cpu(), 1, false)
                                           : matmul_gflops(1024, Device::cpu(), 3);
  return out;
}

Environment::Cuda cuda_record() {
  Environment::Cuda cuda;
  cuda.compiled = cuda_seam::compiled();
  cuda.available = cuda_seam::compiled() && torch::cuda::is_available();
  cuda.device_count = cuda_seam::compiled() ? static_cast<int>(torch::cuda::device_count()) : 0;
  cuda.runtime_version = cuda_seam::compiled() ? cuda_seam::runtime_version() : "";
  cuda.cudnn_version = cuda_seam::compiled() ? cuda_seam::cudnn_version() : "";
  return cuda;
}

std::vector<GpuRecord> gpu_records(const NvmlReport& nvml) {
  std::vector<GpuRecord> gpus;
  for (const auto& g : nvml.gpus)
    gpus.push_back({g.index, g.name, g.memory_total_bytes, g.sm_clock_mhz, g.sm_clock_max_mhz,
                    g.temperature_c, g.throttle_reasons});
  return gpus;
}

}  // namespace

Environment machine_identity() {
  Environment record;
  record.cpu = cpu_record();
  record.libtorch = libtorch_record();
  return record;
}

Environment environment_record(bool measure_peak) {
  Environment record;
  record.crossover_version = CROSSOVER_VERSION;
  record.crossover_revision = build_revision();
  record.compiler = __VERSION__;
  record.recorded_at = utc_now();
  record.host = host_record();
  record.cpu = cpu_record();
  record.libtorch = libtorch_record();
  record.threads = threads_record();
  record.allocator = allocator_settings();  // "" where the process kept glibc's defaults
  record.blas = blas_record(record.libtorch.blas_info, measure_peak);
  record.cuda = cuda_record();
  const NvmlReport nvml = query_nvml();
  // The peak each device's efficiency is measured against: a large float32 matrix product.
  if (measure_peak) {
    // Two timed products, not five, and no warm-up of their own (blas_record's 1024 products
    // just warmed the threads): on a 2-core machine each 2048 one costs about 0.1 s of every
    // run's start (docs/results.md, "Build and test times").
    // Under the reference BLAS (warned about) the two would take about ten seconds of every
    // run's start: its 1024 product's rate stands for the peak.
    record.peak_gflops.emplace_back(
        Device::cpu().text(), record.blas.reference ? record.blas.matmul_1024_gflops.value_or(0.0)
                                                    : matmul_gflops(2048, Device::cpu(), 2, false));
    for (int i = 0; i < record.cuda.device_count; ++i) {
      const Device device = Device::cuda(i);
      record.peak_gflops.emplace_back(device.text(), matmul_gflops(8192, device, 2));
    }
  }
  record.nvml = {nvml.available, nvml.error, nvml.driver_version};
  record.gpus = gpu_records(nvml);
  // What can be read of energy and clocks here, and why not.
  record.energy = EnergyRecord{energy_availability(DeviceKind::kCpu),
                               energy_availability(DeviceKind::kCuda), cpu_mhz()};
  return record;
}

}  // namespace crossover
