# The CMake glue mlxbuild replaces, as the reference project runs it at
# configure time: copy every overlay file over the source tree with
# configure_file(COPYONLY), which rewrites a file only when its content
# differs. It never looks at pristine files or removes anything.
# Usage: cmake -DOVERLAY=dir -DTREE=dir -P glue.cmake
file(GLOB_RECURSE files RELATIVE "${OVERLAY}" "${OVERLAY}/*")
foreach(f IN LISTS files)
  configure_file("${OVERLAY}/${f}" "${TREE}/${f}" COPYONLY)
endforeach()
