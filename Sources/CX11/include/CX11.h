// Xlib + MIT-SHM. Compiled C lives in CX11.c (an Xlib error handler that records the last error per thread).
#ifndef CX11_H
#define CX11_H
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include "tk_x11.h"
#endif
