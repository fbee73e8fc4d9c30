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
#endif
