#pragma once
// The git revision this program was built from, taken at build time (cmake/revision.cmake).

namespace crossover {

/// `git describe --always --dirty` of the source tree when the program was last built, or
/// "unknown" outside a git checkout.
const char* build_revision();

}  // namespace crossover
