# register_spill shows the spills ptxas reported for each kernel: ptxas_report.sh compiles the
# lab once more with -Xptxas -v, for the same architectures, and writes register_spill_ptxas.h
# into the build tree, where the lab finds it (it builds without it too: spills unknown).
set(register_spill_generated ${CMAKE_CURRENT_BINARY_DIR}/generated/${program})
set(register_spill_arch_flags)
foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
  if(arch MATCHES "^(native|all|all-major)$")
    list(APPEND register_spill_arch_flags -arch=${arch})
  elseif(arch MATCHES "^([0-9]+[a-z]?)(-real)?$")
    # "90" and "90-real" have machine code that ptxas writes now; "90-virtual" is PTX only,
    # compiled by the driver at load time, so its spills are not known here.
    list(APPEND register_spill_arch_flags
         "-gencode=arch=compute_${CMAKE_MATCH_1},code=sm_${CMAKE_MATCH_1}")
  endif()
endforeach()

# The same compiler flags as the lab's own compile, so that ptxas sees the same code.
string(TOUPPER "${CMAKE_BUILD_TYPE}" register_spill_config)
separate_arguments(register_spill_flags UNIX_COMMAND
  "${CMAKE_CUDA_FLAGS} ${CMAKE_CUDA_FLAGS_${register_spill_config}} -lineinfo")

# The source the program is built from: the lab's, or its student version (MEMLAB_STUDENT).
set(register_spill_source
    "$<FILTER:$<TARGET_PROPERTY:${program},SOURCES>,INCLUDE,/${program}\\.cu$>")

add_custom_command(
  OUTPUT ${register_spill_generated}/register_spill_ptxas.h
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/labs/${directory}/ptxas_report.sh
          ${register_spill_generated}/register_spill_ptxas.h ${CMAKE_CUDA_COMPILER}
          ${register_spill_source} ${register_spill_arch_flags} ${register_spill_flags}
          -I${CMAKE_CURRENT_SOURCE_DIR}/common
  DEPENDS ${register_spill_source} labs/${directory}/ptxas_report.sh
          common/memlab.h common/access_model.h
  WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
  COMMENT "Recording what ptxas reports for the ${program} kernels"
  VERBATIM)
target_sources(${program} PRIVATE ${register_spill_generated}/register_spill_ptxas.h)
target_include_directories(${program} PRIVATE ${register_spill_generated})
