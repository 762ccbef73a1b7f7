# Installs the already-built xpose into WORK_DIR/prefix, then configures, builds and runs the consumer in
# this folder with find_package(xpose). Run by CTest (test `install_consumer`).
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${XPOSE_BINARY_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${XPOSE_SOURCE_DIR}/tests/install -B ${WORK_DIR}/build -G ${GENERATOR}
                        -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHS}"
                        -DXPOSE_CONSUMER_FORTRAN=${FORTRAN}
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed: ${rc}")
endif()
set(consumers xpose_consumer xpose_c_consumer)
if(FORTRAN)
  list(APPEND consumers xpose_fortran_consumer)
endif()
foreach(consumer ${consumers})
  execute_process(COMMAND ${WORK_DIR}/build/${consumer} RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "the consumer ${consumer} failed: ${rc}")
  endif()
endforeach()
