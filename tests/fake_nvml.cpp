/* A stand-in for libnvidia-ml.so.1, loaded through CROSSOVER_NVML_LIBRARY so that the NVML
 * paths of crossover (energy, power, clocks, throttle reasons) run on a machine without a GPU.
 * Its GPUs draw a constant power; what it reports is set by environment variables:
 *   FAKE_NVML_GPUS       GPUs (default 1)
 *   FAKE_NVML_WATTS      GPU 0's power (default 100); the energy counter is that power times
 *                        the time since nvmlInit
 *   FAKE_NVML_STEP       watts more for each next GPU (default 0), so a test tells them apart
 * Its GPUs' UUIDs are GPU-fake-0, GPU-fake-1, ...
 *   FAKE_NVML_NO_ENERGY  1: the energy counter is not supported (crossover samples the power)
 *   FAKE_NVML_NO_POWER   1: the power reading is not supported
 *   FAKE_NVML_ENERGY_PERIOD_MS  the counter moves only every this many milliseconds (default 0:
 *                        at every read), as real counters move in steps
 *   FAKE_NVML_SM_CLOCK   the current SM clock in MHz (default 1980, the maximum)
 *   FAKE_NVML_THROTTLE   the clocks-event reasons bit mask (default 0) */
#include <cstdlib>
#include <cstring>
#include <ctime>

#define NVML_SUCCESS 0
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3

extern "C" {

static double started;

static double now_seconds() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double setting(const char* name, double fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? atof(value) : fallback;
}

int nvmlInit_v2() {
  started = now_seconds();
  return NVML_SUCCESS;
}
int nvmlShutdown() { return NVML_SUCCESS; }

int nvmlDeviceGetCount_v2(unsigned* count) {
  *count = (unsigned)setting("FAKE_NVML_GPUS", 1);
  return NVML_SUCCESS;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (index >= (unsigned)setting("FAKE_NVML_GPUS", 1)) return NVML_ERROR_INVALID_ARGUMENT;
  *device = (void*)(size_t)(index + 1);
  return NVML_SUCCESS;
}

int nvmlDeviceGetHandleByUUID(const char* uuid, void** device) {
  const char* prefix = "GPU-fake-";
  if (strncmp(uuid, prefix, strlen(prefix)) != 0) return NVML_ERROR_INVALID_ARGUMENT;
  return nvmlDeviceGetHandleByIndex_v2((unsigned)atoi(uuid + strlen(prefix)), device);
}

/* The power of the GPU behind a handle (its index + 1). */
static double watts(void* device) {
  return setting("FAKE_NVML_WATTS", 100) +
         setting("FAKE_NVML_STEP", 0) * (double)((size_t)device - 1);
}

int nvmlDeviceGetName(void* device, char* name, unsigned length) {
  (void)device;
  strncpy(name, "Stand-in GPU", length);
  return NVML_SUCCESS;
}

int nvmlSystemGetDriverVersion(char* version, unsigned length) {
  strncpy(version, "0.0-stand-in", length);
  return NVML_SUCCESS;
}

int nvmlDeviceGetTotalEnergyConsumption(void* device, unsigned long long* millijoules) {
  if (setting("FAKE_NVML_NO_ENERGY", 0) != 0) return NVML_ERROR_NOT_SUPPORTED;
  const double period = setting("FAKE_NVML_ENERGY_PERIOD_MS", 0) / 1e3;
  double seconds = now_seconds() - started;
  if (period > 0) seconds = period * (double)(long long)(seconds / period);
  *millijoules = (unsigned long long)(watts(device) * seconds * 1e3);
  return NVML_SUCCESS;
}

int nvmlDeviceGetPowerUsage(void* device, unsigned* milliwatts) {
  if (setting("FAKE_NVML_NO_POWER", 0) != 0) return NVML_ERROR_NOT_SUPPORTED;
  *milliwatts = (unsigned)(watts(device) * 1e3);
  return NVML_SUCCESS;
}

int nvmlDeviceGetClockInfo(void* device, int type, unsigned* mhz) {
  (void)device;
  (void)type;
  *mhz = (unsigned)setting("FAKE_NVML_SM_CLOCK", 1980);
  return NVML_SUCCESS;
}

int nvmlDeviceGetMaxClockInfo(void* device, int type, unsigned* mhz) {
  (void)device;
  (void)type;
  *mhz = 1980;
  return NVML_SUCCESS;
}

int nvmlDeviceGetCurrentClocksEventReasons(void* device, unsigned long long* reasons) {
  (void)device;
  *reasons = (unsigned long long)setting("FAKE_NVML_THROTTLE", 0);
  return NVML_SUCCESS;
}

int nvmlDeviceGetTemperature(void* device, int sensor, unsigned* celsius) {
  (void)device;
  (void)sensor;
  *celsius = 40;
  return NVML_SUCCESS;
}

}  // extern "C"
