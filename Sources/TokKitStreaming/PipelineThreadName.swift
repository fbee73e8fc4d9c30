import Synchronization

/// Numbers the pipelines' named threads: `tk-venc-1`, `tk-vdec-3`, … (process-wide, never reused).
enum PipelineThreadName {
    private static let counter = Atomic<Int>(0)

    static func next(_ prefix: String) -> String {
        "\(prefix)-\(counter.add(1, ordering: .relaxed).newValue)"
    }
}
