#include <pthread.h>
#include "tk_x11.h"

static _Thread_local tk_x11_error last_error;

static int record_error(Display *dpy, XErrorEvent *event) {
    (void)dpy;
    last_error.error_code = event->error_code;
    last_error.request_code = event->request_code;
    last_error.minor_code = event->minor_code;
    last_error.resource = event->resourceid;
    return 0;
}

// Default Xlib behaviour prints "XIO: fatal IO error" and exits; this only reports that it happened.
static int quiet_io_error(Display *dpy) {
    (void)dpy;
    return 0;
}

// Called after the IO error handler; returning (instead of exit()) leaves the display marked dead.
static void mark_lost(Display *dpy, void *user_data) {
    (void)dpy;
    if (user_data) *(volatile int *)user_data = 1;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_once(void) {
    XInitThreads();
    XSetErrorHandler(record_error);
    XSetIOErrorHandler(quiet_io_error);
}

void tk_x11_init(void) { pthread_once(&once, init_once); }

tk_x11_error tk_x11_take_error(void) {
    tk_x11_error e = last_error;
    last_error = (tk_x11_error){0, 0, 0, 0};
    return e;
}

Display *tk_x11_open_display(const char *name, volatile int *lost) {
    tk_x11_init();
    Display *dpy = XOpenDisplay(name);
    if (dpy) XSetIOErrorExitHandler(dpy, mark_lost, (void *)lost);
    return dpy;
}
