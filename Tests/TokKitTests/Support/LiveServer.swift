import Testing

/// Every test that runs against a real server in process. Serialized: some of them count process-wide resources
/// (descriptors, live links) that a test running alongside would disturb.
@Suite(.serialized) enum LiveServer {}
