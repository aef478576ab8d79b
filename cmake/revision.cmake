# Run at every build (not only at configure time): writes OUT from the template IN with the git
# revision of SOURCE_DIR ("unknown" outside a git checkout). configure_file leaves OUT untouched
# when the revision has not changed, so an unchanged checkout rebuilds nothing.
execute_process(COMMAND git describe --always --dirty --abbrev=12
                WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE crossover_revision
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT crossover_revision)
  set(crossover_revision "unknown")
endif()
configure_file(${IN} ${OUT} @ONLY)
