#pragma once
// What is wrong with a grid: each problem at its JSON path, and the error that carries them all.
// Apart from grid.hpp so that the reading of a grid's file (grid_file.cpp), which grid.cpp calls,
// needs nothing of the grid itself.

#include <stdexcept>
#include <string>
#include <vector>

namespace crossover {

/// One problem in a grid: where (a JSON path such as `experiments[1].grid.batch_size[2]`) and what.
struct GridIssue {
  std::string path;
  std::string message;
};

/// Thrown when a grid cannot be used; what() lists every issue, one per line.
class GridError : public std::runtime_error {
 public:
  GridError(std::string file, std::vector<GridIssue> issues);
  const std::string& file() const { return file_; }
  const std::vector<GridIssue>& issues() const { return issues_; }

 private:
  std::string file_;
  std::vector<GridIssue> issues_;
};

}  // namespace crossover
