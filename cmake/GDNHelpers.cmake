# gdn_add_mlir_library(name SOURCES... [DEPENDS targets...] [LINK_LIBS libs...])
# A static, position-independent library linked against the MLIR dylib, so
# that gdn-opt and the mlir-opt plugin share Debian's one copy of MLIR.
function(gdn_add_mlir_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
endfunction()
