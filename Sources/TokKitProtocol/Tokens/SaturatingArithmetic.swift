extension Int64 {
    /// `self + other`, clamped to `Int64.min...Int64.max` instead of trapping: for times where one side comes from
    /// outside (a token, a request, a caller's clock).
    package func saturatingAdding(_ other: Int64) -> Int64 {
        let sum = addingReportingOverflow(other)
        guard sum.overflow else { return sum.partialValue }
        return other > 0 ? .max : .min
    }
}
