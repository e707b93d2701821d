// Package shellwords reads the command lines that Ninja hands to /bin/sh
// (CMake's compile and custom commands) into argument vectors, exactly as
// sh would split them, and refuses what only sh could decide at run time.
package shellwords
