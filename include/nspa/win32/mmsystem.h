/* NSPA Win32 layer: mmsystem.h — only its timer part (timeapi.h). */
#ifndef NSPA_WIN32_MMSYSTEM_H
#define NSPA_WIN32_MMSYSTEM_H
#include "timeapi.h"
#endif
