// libnice + GLib. Swift cannot call variadic functions (g_object_set) nor function-like macros
// (g_signal_connect, G_CALLBACK): the typed wrappers below cover what TokKitICE uses.
#ifndef TOKKIT_CNICE_SHIM_H
#define TOKKIT_CNICE_SHIM_H
#include <glib.h>
#include <glib-object.h>
#include <nice/agent.h>
#include <nice/interfaces.h>

// Typed signal handler shapes (libnice documents the argument lists of each signal).
typedef void (*tk_nice_candidate_fn)(NiceAgent *agent, NiceCandidate *candidate, gpointer data);
typedef void (*tk_nice_stream_fn)(NiceAgent *agent, guint stream_id, gpointer data);
typedef void (*tk_nice_state_fn)(NiceAgent *agent, guint stream_id, guint component_id, guint state,
                                 gpointer data);
typedef void (*tk_nice_pair_fn)(NiceAgent *agent, guint stream_id, guint component_id,
                                NiceCandidate *local, NiceCandidate *remote, gpointer data);

static inline gulong tk_nice_connect_new_candidate(NiceAgent *agent, tk_nice_candidate_fn fn, gpointer data) {
    return g_signal_connect(agent, "new-candidate-full", G_CALLBACK(fn), data);
}
static inline gulong tk_nice_connect_gathering_done(NiceAgent *agent, tk_nice_stream_fn fn, gpointer data) {
    return g_signal_connect(agent, "candidate-gathering-done", G_CALLBACK(fn), data);
}
static inline gulong tk_nice_connect_state_changed(NiceAgent *agent, tk_nice_state_fn fn, gpointer data) {
    return g_signal_connect(agent, "component-state-changed", G_CALLBACK(fn), data);
}
static inline gulong tk_nice_connect_selected_pair(NiceAgent *agent, tk_nice_pair_fn fn, gpointer data) {
    return g_signal_connect(agent, "new-selected-pair-full", G_CALLBACK(fn), data);
}
static inline void tk_nice_disconnect(NiceAgent *agent, gulong handler) {
    g_signal_handler_disconnect(agent, handler);
}

// Typed property setters (g_object_set is variadic).
static inline void tk_nice_set_bool(NiceAgent *agent, const char *name, gboolean value) {
    g_object_set(agent, name, value, NULL);
}
static inline void tk_nice_set_uint(NiceAgent *agent, const char *name, guint value) {
    g_object_set(agent, name, value, NULL);
}
static inline void tk_nice_set_string(NiceAgent *agent, const char *name, const char *value) {
    g_object_set(agent, name, value, NULL);
}

static inline void tk_nice_unref(NiceAgent *agent) { g_object_unref(agent); }
// The kernel's receive timestamp of a datagram socket (ioctl is variadic: Swift cannot call it).
#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>
#include <time.h>

// The kernel's receive time of the last datagram read from socket `fd` (SIOCGSTAMPNS, which also turns the socket's
// receive timestamps on, so the datagrams queued before the first call have none) in CLOCK_REALTIME nanoseconds
// (`*realtime`), and that time on CLOCK_MONOTONIC (`*monotonic`: the monotonic clock now minus the stamp's age on the
// real-time clock now, both read here). Returns 0, or -errno: ENOENT when no datagram was read yet, ENOTTY or
// EINVAL for a descriptor that is not a socket with timestamps (a closed one: EBADF).
static inline int tk_socket_receive_stamp(int fd, int64_t *realtime, int64_t *monotonic) {
    struct timespec stamp, real, mono;
    if (ioctl(fd, SIOCGSTAMPNS, &stamp) != 0) return -errno;
    clock_gettime(CLOCK_REALTIME, &real);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    int64_t at = (int64_t)stamp.tv_sec * 1000000000 + stamp.tv_nsec;
    int64_t age = ((int64_t)real.tv_sec * 1000000000 + real.tv_nsec) - at;
    *realtime = at;
    *monotonic = ((int64_t)mono.tv_sec * 1000000000 + mono.tv_nsec) - age;
    return 0;
}

// 1 when `fd` is a datagram socket (SO_TYPE), 0 when it is another kind of socket, -errno when it is none.
static inline int tk_socket_is_datagram(int fd) {
    int type = 0;
    socklen_t length = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0) return -errno;
    return type == SOCK_DGRAM ? 1 : 0;
}
#endif
