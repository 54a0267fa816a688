# Win32 layer basics
nspa_add_test(win32_lasterror SOURCES tests/win32_lasterror.c WIN32 THREADED)
