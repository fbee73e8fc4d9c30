// libv4l2 and the V4L2 UAPI. Swift cannot call variadic functions nor see _IOR/_IOWR ioctl numbers:
// the static inline wrappers and constants below expose them.
#include <linux/videodev2.h>
#include <libv4l2.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
