#pragma once
// Which Debian package installed a file, and its version: Debian's libtorch1.13 package is
// 1.13.1 while the library calls itself 1.13.0, and an environment record should say both.

#include <string>

namespace crossover {

struct DebianPackage {
  std::string name;     ///< "libtorch1.13"; "" when no package lists the file
  std::string version;  ///< "1.13.1+dfsg-4"
};

/// The package whose file list (DPKG_DIR/info/*.list) names `file` — as given, or the file its
/// links lead to — and its version from DPKG_DIR/status. Empty where none does: another
/// distribution, or a LibTorch unpacked from a zip or a pip wheel.
DebianPackage debian_package(const std::string& file,
                             const std::string& dpkg_dir = "/var/lib/dpkg");

}  // namespace crossover
