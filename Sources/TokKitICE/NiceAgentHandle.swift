import CNice

/// A `NiceAgent *`. libnice guards every public `nice_agent_*` call with its own lock, so the pointer may
/// travel between threads; ``ICEAgent`` keeps it alive until its teardown on the loop thread.
struct NiceAgentHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
