// The data sets' one declaration (workloads/data/datasets.hpp): the fetch script checks what it
// says, and a data set added by one declaration is found, estimated and fingerprinted from it.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

#include "core/cells/cell.hpp"
#include "core/text/text.hpp"
#include "runner/distributed/shard.hpp"
#include "tests/test_support.hpp"
#include "workloads/data/catalog.hpp"
#include "workloads/data/datasets.hpp"

namespace crossover {
namespace {

using testing::ScratchDir;

// scripts/fetch-data.sh verifies each file it fetched; its numbers must be the declaration's.
TEST(Datasets, TheFetchScriptChecksWhatEachDeclarationSays) {
  std::istringstream script(
      testing::slurp(std::string(CROSSOVER_SOURCE_DIR) + "/scripts/fetch-data.sh"));
  const std::regex folder_var(R"re(^(\w+)=\$data/(\S+)$)re");
  const std::regex csv(R"re(^check_csv "\$data/([^"]+)" (\d+) (\d+) \d+$)re");
  const std::regex idx(R"re(^\s*check_idx "\$(\w+)/(\S+)-idx\d-ubyte\.gz" \d+ (\d+)$)re");
  const std::regex batches(R"re(^\s*for f in (data_batch_[^;]+); do$)re");
  const std::regex batch_bytes(R"re(\[\[ \$size == (\d+) \]\])re");
  std::map<std::string, std::string> folders;  // shell variable -> folder under $data
  int checks = 0;
  std::smatch m;
  for (std::string line; std::getline(script, line);) {
    if (std::regex_match(line, m, folder_var)) folders[m[1]] = m[2];
    const auto by_location = [](const std::string& location) -> const DatasetInfo& {
      for (const auto& d : dataset_catalog())
        if (d.location == location) return d;
      throw std::runtime_error("no data set declared at " + location);
    };
    if (std::regex_match(line, m, csv)) {
      const DatasetInfo& d = by_location(m[1]);
      EXPECT_EQ(d.rows, std::stoll(m[2])) << line;
      EXPECT_EQ(d.features + 1, std::stoll(m[3])) << line;  // the target is the last column
      ++checks;
    } else if (std::regex_match(line, m, idx)) {
      const DatasetInfo& d = by_location(folders.at(m[1]));
      const bool train = m[2].str().rfind("train", 0) == 0;
      EXPECT_EQ(train ? d.rows : d.test_images, std::stoll(m[3])) << line;
      ++checks;
    } else if (std::regex_match(line, m, batches)) {
      const DatasetInfo& d = dataset_info("cifar10");
      std::istringstream names(m[1].str());
      std::vector<std::string> files;
      for (std::string name; names >> name;) files.push_back(name + ".bin");
      EXPECT_EQ(files, d.files) << line;
      ++checks;
    } else if (std::regex_search(line, m, batch_bytes)) {
      // Each CIFAR-10 batch: a label byte and the image's bytes per image, 10,000 images.
      const DatasetInfo& d = dataset_info("cifar10");
      const auto per_batch = d.rows / static_cast<std::int64_t>(d.files.size() - 1);
      EXPECT_EQ(per_batch, d.test_images);
      EXPECT_EQ(per_batch * (1 + d.channels * d.side * d.side), std::stoll(m[1])) << line;
      ++checks;
    }
  }
  EXPECT_EQ(checks, 2 + 4 + 2 + 2);  // the two tables, Fashion-MNIST, MNIST, CIFAR-10
}

TEST(Datasets, AnUnknownNameListsTheDeclaredOnes) {
  EXPECT_EQ(find_dataset("imagenet"), nullptr);
  try {
    (void)dataset_info("imagenet");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("known: iris, boston, mnist, fashion_mnist, cifar10"),
              std::string::npos)
        << e.what();
  }
}

// docs/development.md, "Adding a data set": the declaration is all that the files, the shard
// estimate and the run's fingerprint need.
TEST(Datasets, AThrowAwayDataSetIsOneDeclaration) {
  const DatasetInfo tiny = DeclareDataset("tiny").table("tiny.csv", 8, 2, 2).from("a test");
  const ScopedDataset declared(tiny);
  EXPECT_THROW(ScopedDataset again(tiny), std::invalid_argument);
  const DatasetInfo& d = dataset_info("tiny");
  EXPECT_EQ(d.train_rows(), 6);
  EXPECT_EQ(d.test_rows(), 2);

  ScratchDir dir;
  EXPECT_FALSE(have_dataset_files(d, dir.path()));
  EXPECT_TRUE(dataset_files(d, dir.path()).paths.empty());
  const std::string file = dir.write("tiny.csv", "8,2,a,b\n0,1,0\n1,0,1\n");
  EXPECT_TRUE(have_dataset_files(d, dir.path()));
  EXPECT_EQ(dataset_files(d, dir.path()).paths, std::vector<std::string>{file});

  // The shard estimate trains on its 6 rows at dataset_size "full".
  Cell cell;
  cell.workload = "iris_mlp";
  cell.dataset = "tiny";
  cell.dataset_size = kFull;
  Cell six = cell;
  six.dataset_size = 6;
  EXPECT_DOUBLE_EQ(estimated_cost(cell), estimated_cost(six));
}

// The rows a workload makes in memory are declared once, in its catalog entry: the shard
// estimate, its notes (`crossover list`) and docs/grids.md's workload table say them.
TEST(Datasets, TheRowsMadeInMemoryAreTheWorkloadsDeclared) {
  const std::string grids = testing::slurp(std::string(CROSSOVER_SOURCE_DIR) + "/docs/grids.md");
  int made = 0;
  for (const WorkloadInfo& w : workload_catalog()) {
    if (w.made_train_rows == 0) continue;
    ++made;
    const std::string rows = format_axis_value(static_cast<double>(w.made_train_rows)) + " / " +
                             format_axis_value(static_cast<double>(w.made_test_rows));
    EXPECT_NE(
        w.notes.find(format_axis_value(static_cast<double>(w.made_train_rows)) + " training rows"),
        std::string::npos)
        << w.notes;
    const auto row = grids.find("\n| `" + w.name + "` |");
    ASSERT_NE(row, std::string::npos) << w.name;
    EXPECT_NE(grids.substr(row, grids.find('\n', row + 1) - row).find(rows), std::string::npos)
        << "docs/grids.md's row of " << w.name << " does not say " << rows;
    Cell cell;
    cell.workload = w.name;
    cell.dataset = "synthetic";
    cell.dataset_size = kFull;
    EXPECT_EQ(full_training_rows(cell), w.made_train_rows);
    Cell sized = cell;
    sized.dataset_size = w.made_train_rows;
    EXPECT_DOUBLE_EQ(estimated_cost(cell), estimated_cost(sized));
  }
  EXPECT_EQ(made, 2);  // mlp and torchscript
}

}  // namespace
}  // namespace crossover
