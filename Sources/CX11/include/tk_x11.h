// What Swift cannot do with Xlib on its own: an error handler that records errors instead of exiting, a
// survivable connection loss, and wrappers for function-like macros. Used by TokKitCapture's ScreenCapturer;
// any other TokKit code that talks to Xlib should call tk_x11_init() first and read errors the same way.
#ifndef TK_X11_H
#define TK_X11_H
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>

/// The last X protocol error seen on the calling thread (error_code 0: none).
typedef struct {
    int error_code;          ///< BadWindow, BadMatch, BadAccess, ...
    int request_code;        ///< major opcode of the failed request
    int minor_code;          ///< minor opcode (extension requests, e.g. X_ShmGetImage)
    unsigned long resource;  ///< the XID the request named
} tk_x11_error;

/// Once per process, before any other Xlib call: XInitThreads() and an error handler that stores each error in
/// a thread-local slot (read with tk_x11_take_error) instead of printing it and exiting. Idempotent and
/// thread-safe. The handler is process-wide: code that installs another one with XSetErrorHandler breaks this.
void tk_x11_init(void);

/// Returns the last error recorded on the calling thread and clears it. Xlib reports an error on the thread that
/// reads its reply, so call XSync (or a request with a reply) first.
tk_x11_error tk_x11_take_error(void);

/// XOpenDisplay plus a connection-loss handler: when the server goes away, *lost becomes 1 and Xlib does NOT
/// exit the process; every later request on that display fails at once. `lost` must outlive the display.
Display *tk_x11_open_display(const char *name, volatile int *lost);

static inline Window tk_x11_default_root(Display *dpy) { return DefaultRootWindow(dpy); }
static inline int tk_x11_default_screen(Display *dpy) { return DefaultScreen(dpy); }
static inline int tk_x11_image_byte_order(Display *dpy) { return ImageByteOrder(dpy); }
static inline unsigned long tk_x11_black_pixel(Display *dpy) { return BlackPixel(dpy, DefaultScreen(dpy)); }
static inline unsigned long tk_x11_all_planes(void) { return AllPlanes; }
/// Frees an XImage. For a shared-memory image, set image->data to NULL first (the segment is not Xlib's).
static inline int tk_x11_destroy_image(XImage *image) { return XDestroyImage(image); }
static inline unsigned long tk_x11_get_pixel(XImage *image, int x, int y) { return XGetPixel(image, x, y); }
#endif
