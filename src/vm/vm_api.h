/* The vm module's interface to the other modules of the library: hidden, declared once. */
#ifndef NSPA_VM_API_H
#define NSPA_VM_API_H
#include "common/export.h"

/* A thread made by CreateThread is starting: when the process uses exceptions (the fault
 * handlers are installed), give it its alternate signal stack now, so that a stack
 * overflow before its first fault still reaches the handlers. */
NSPA_HIDDEN void nspa__vm_thread_start(void);
#endif
