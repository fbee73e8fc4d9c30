import CNice

// libnice's C callbacks. File-scope constants that capture nothing: the `ICEAgentCore` arrives as the
// unretained user-data pointer (ICEAgent keeps it alive until the loop thread has ended).

@inline(__always)
private func core(_ data: gpointer?) -> ICEAgentCore {
    Unmanaged<ICEAgentCore>.fromOpaque(data!).takeUnretainedValue()
}

/// Datagrams, on the loop thread (STUN is consumed by libnice and never shows up here).
///
/// libnice calls this from the dispatch of its socket source. GLib blocks a source that cannot recurse for the
/// length of each dispatch by taking its descriptor out of the context's poll set and putting it back afterwards,
/// and each of the two changes writes the context's wakeup eventfd: two `write(2)`s per datagram, then one more
/// `poll(2)`, a `read(2)` of the eventfd and a whole extra loop iteration (prepare and check of every source) that
/// finds nothing to do. Nothing here iterates the loop again (the callbacks of this file never run a nested
/// iteration), so the source is marked as able to recurse the first time it delivers, and its later dispatches skip
/// the blocking. `g_main_current_source` is the source being dispatched (a thread-local read).
let niceReceive: NiceAgentRecvFunc = { agent, _, _, length, buffer, data in
    if let source = g_main_current_source(), g_source_get_can_recurse(source) == 0 {
        g_source_set_can_recurse(source, 1)
    }
    guard let buffer else { return }
    core(data).deliver(UnsafeRawBufferPointer(start: buffer, count: Int(length)), agent: agent)
}

/// `new-candidate-full`: any thread.
let niceNewCandidate: tk_nice_candidate_fn = { agent, candidate, data in
    guard let agent, let candidate else { return }
    if let c = ICEAgent.describe(candidate, agent: agent) { core(data).gathered(c) }
}

/// `candidate-gathering-done`: any thread.
let niceGatheringDone: tk_nice_stream_fn = { _, _, data in
    core(data).gatheringDone()
}

/// `component-state-changed`: any thread.
let niceStateChanged: tk_nice_state_fn = { _, _, _, state, data in
    core(data).componentStateChanged(NiceComponentState(state))
}

/// `new-selected-pair-full`: any thread.
let niceSelectedPair: tk_nice_pair_fn = { _, _, _, local, remote, data in
    guard let local, let remote else { return }
    core(data).select(ICECandidatePair(local: ICEAgent.endpoint(local), remote: ICEAgent.endpoint(remote)))
}

/// `nice_agent_close_async` completion, on the loop thread: the last step of the teardown.
let niceClosed: GAsyncReadyCallback = { object, _, data in
    g_object_unref(UnsafeMutableRawPointer(object))
    Unmanaged<GLibLoop>.fromOpaque(data!).takeRetainedValue().quit()
}
