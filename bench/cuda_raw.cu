// What it measures: the CUDA runtime without LibTorch — empty-kernel launch latency, the
// resolution of CUDA event timing, and host-to-device copy bandwidth from pageable and pinned
// memory. Why it matters: subtracting these from LibTorch's own figures (bench_tips) tells the
// framework's overhead from the hardware's. Without a usable GPU it says so and exits with 77,
// which CTest reports as skipped.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <vector>

#define CHECK(expr)                                                      \
  do {                                                                   \
    const cudaError_t status = (expr);                                   \
    if (status != cudaSuccess) {                                         \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, \
                   cudaGetErrorString(status));                          \
      return 1;                                                          \
    }                                                                    \
  } while (false)

__global__ void empty_kernel() {}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("{\"skipped\": \"no usable CUDA device\"}\n");
    return 77;
  }
  cudaDeviceProp properties{};
  CHECK(cudaGetDeviceProperties(&properties, 0));
  empty_kernel<<<1, 1>>>();
  CHECK(cudaDeviceSynchronize());

  constexpr int kLaunches = 10000;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kLaunches; ++i) empty_kernel<<<1, 1>>>();
  CHECK(cudaDeviceSynchronize());
  const double launch_us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
      kLaunches;

  cudaEvent_t before, after;
  CHECK(cudaEventCreate(&before));
  CHECK(cudaEventCreate(&after));
  CHECK(cudaEventRecord(before));
  CHECK(cudaEventRecord(after));
  CHECK(cudaEventSynchronize(after));
  float event_ms = 0.0f;
  CHECK(cudaEventElapsedTime(&event_ms, before, after));

  std::printf(
      "{\"device\": \"%s\", \"launch_latency_us\": %.3f, \"empty_event_pair_us\": %.3f, "
      "\"copies\": [",
      properties.name, launch_us, event_ms * 1000.0);
  bool first = true;
  for (const size_t bytes :
       {size_t{4} << 10, size_t{1} << 20, size_t{64} << 20, size_t{256} << 20}) {
    void* device = nullptr;
    CHECK(cudaMalloc(&device, bytes));
    std::vector<char> pageable(bytes, 1);
    void* pinned = nullptr;
    CHECK(cudaMallocHost(&pinned, bytes));
    for (const bool use_pinned : {false, true}) {
      const void* source = use_pinned ? pinned : pageable.data();
      CHECK(cudaMemcpy(device, source, bytes, cudaMemcpyHostToDevice));
      CHECK(cudaEventRecord(before));
      for (int i = 0; i < 10; ++i) CHECK(cudaMemcpy(device, source, bytes, cudaMemcpyHostToDevice));
      CHECK(cudaEventRecord(after));
      CHECK(cudaEventSynchronize(after));
      CHECK(cudaEventElapsedTime(&event_ms, before, after));
      std::printf("%s{\"bytes\": %zu, \"pinned\": %s, \"bytes_per_second\": %.0f}",
                  first ? "" : ", ", bytes, use_pinned ? "true" : "false",
                  10.0 * static_cast<double>(bytes) / (event_ms / 1000.0));
      first = false;
    }
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFree(device));
  }
  std::printf("]}\n");
  return 0;
}
