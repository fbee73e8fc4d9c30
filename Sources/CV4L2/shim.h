// libv4l2 and the V4L2 UAPI. Swift cannot call variadic functions nor see _IOR/_IOWR ioctl numbers:
// the static inline wrappers and constants below expose them.
#include <linux/videodev2.h>
#include <libv4l2.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

/// `v4l2_open` without its variadic mode argument (device nodes are never created by opening them).
static inline int tk_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }

/// `v4l2_ioctl` with its one pointer argument spelled out.
static inline int tk_v4l2_ioctl(int fd, unsigned long request, void *arg) { return v4l2_ioctl(fd, request, arg); }

// The ioctl numbers TokKit uses (each one an _IOR/_IOW/_IOWR expression Swift cannot import).
static const unsigned long TK_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long TK_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long TK_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long TK_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long TK_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long TK_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long TK_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long TK_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long TK_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long TK_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long TK_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long TK_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long TK_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long TK_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
