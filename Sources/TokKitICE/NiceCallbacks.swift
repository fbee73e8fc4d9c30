import CNice

// libnice's C callbacks. File-scope constants that capture nothing: the `ICEAgentCore` arrives as the
// unretained user-data pointer (ICEAgent keeps it alive until the loop thread has ended).

@inline(__always)
private func core(_ data: gpointer?) -> ICEAgentCore {
    Unmanaged<ICEAgentCore>.fromOpaque(data!).takeUnretainedValue()
}

/// Datagrams, on the loop thread (STUN is consumed by libnice and never shows up here).
let niceReceive: NiceAgentRecvFunc = { _, _, _, length, buffer, data in
    guard let buffer else { return }
    core(data).deliver(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
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
