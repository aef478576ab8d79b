# Included by CTest when it starts (TEST_INCLUDE_FILES, written by tests/CMakeLists.txt with
# `binary` and `work` set): one test per GoogleTest suite of `binary`, read from its
# --gtest_list_tests, instead of one per test. A process that loads LibTorch takes about 0.7 s to
# start on 2 cores, 73 of them were a tenth of the suite's time (docs/results.md, "Build and test
# times"). A suite's *_CUDA tests are a test of their own, <suite>_CUDA (what scripts/gpu-check.sh
# selects), skipped where every one of them skips. `ctest -R Executor` still picks a suite; one
# test of it is `build/tests/crossover_torch_tests --gtest_filter=Executor.Name`.
execute_process(COMMAND "${binary}" --gtest_list_tests OUTPUT_VARIABLE listing
                ERROR_VARIABLE error RESULT_VARIABLE code TIMEOUT 120)
if(NOT code EQUAL 0)
  # A test that fails and shows why, rather than a suite that silently has no tests.
  add_test(crossover_torch_tests_list "${binary}" --gtest_list_tests)
  return()
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(suites)
foreach(line IN LISTS lines)
  if(line MATCHES "^([A-Za-z0-9_/]+)\\.")
    set(suite "${CMAKE_MATCH_1}")
    list(APPEND suites "${suite}")
  elseif(line MATCHES "^  [A-Za-z0-9_/]+_CUDA( |$)")
    set("cuda_${suite}" ON)
  elseif(line MATCHES "^  ")
    set("cpu_${suite}" ON)
  endif()
endforeach()
foreach(suite IN LISTS suites)
  if(cpu_${suite})
    add_test("${suite}" "${binary}" "--gtest_filter=${suite}.*-*_CUDA")
    set_tests_properties("${suite}" PROPERTIES WORKING_DIRECTORY "${work}")
  endif()
  if(cuda_${suite})
    add_test("${suite}_CUDA" "${binary}" "--gtest_filter=${suite}.*_CUDA")
    set_tests_properties("${suite}_CUDA" PROPERTIES WORKING_DIRECTORY "${work}"
                         SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
  endif()
endforeach()
