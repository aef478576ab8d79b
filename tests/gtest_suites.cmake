# Included by CTest when it starts (TEST_INCLUDE_FILES, written by tests/CMakeLists.txt with
# `binary`, `work`, `alone` and `with_cuda` set): the GoogleTest suites of `binary`, read from its
# --gtest_list_tests, as a few CTest tests instead of one per test. A process that loads Debian's
# LibTorch takes about 0.7 s to start on 2 cores (docs/results.md, "Build and test times"), so
#  - the suites named in `alone` (the long ones) are a CTest test each, named after the suite;
#  - every other suite is one CTest test together, named by its suites joined with "+", so that
#    `ctest -R Tabular` still picks the suite (with the ones beside it); one test of it is
#    `build/tests/crossover_torch_tests --gtest_filter=Tabular.Name`;
#  - a suite's *_CUDA tests are a test of their own, <suite>_CUDA (what scripts/gpu-check.sh
#    selects), skipped where every one of them skips, and disabled (no process is started) in a
#    build against a LibTorch without CUDA, where each of them would skip.
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
set(together)
foreach(suite IN LISTS suites)
  list(FIND alone "${suite}" long)  # CTest reads this file without policies: no IN_LIST
  if(cpu_${suite} AND long GREATER -1)
    add_test("${suite}" "${binary}" "--gtest_filter=${suite}.*-*_CUDA")
    set_tests_properties("${suite}" PROPERTIES WORKING_DIRECTORY "${work}")
  elseif(cpu_${suite})
    list(APPEND together "${suite}")
  endif()
  if(cuda_${suite})
    add_test("${suite}_CUDA" "${binary}" "--gtest_filter=${suite}.*_CUDA")
    set_tests_properties("${suite}_CUDA" PROPERTIES WORKING_DIRECTORY "${work}"
                         SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
    if(NOT with_cuda)
      set_tests_properties("${suite}_CUDA" PROPERTIES DISABLED TRUE)
    endif()
  endif()
endforeach()
if(together)
  list(JOIN together "+" name)
  list(JOIN together ".*:" filter)
  add_test("${name}" "${binary}" "--gtest_filter=${filter}.*-*_CUDA")
  set_tests_properties("${name}" PROPERTIES WORKING_DIRECTORY "${work}")
endif()
