/// Bytes per row of each plane of a frame: up to three values, stored inline (no heap allocation).
///
/// Use it like an array: `format.bytesPerRow[0]`, `format.bytesPerRow.count`, `[640, 320, 320]`.
public struct PlaneStrides: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The most planes any ``PixelFormat`` has.
    public static let maximumCount = 3

    private var values: (Int, Int, Int)
    /// How many planes have a stride (0 to ``maximumCount``).
    public let count: Int

    /// Strides for up to three planes. Traps if more than three are given.
    public init(_ strides: some Collection<Int>) {
        precondition(strides.count <= Self.maximumCount, "a frame has at most \(Self.maximumCount) planes")
        var v = (0, 0, 0)
        for (i, s) in strides.enumerated() {
            switch i {
            case 0: v.0 = s
            case 1: v.1 = s
            default: v.2 = s
            }
        }
        values = v
        count = strides.count
    }

    /// Strides from a literal such as `[640, 320, 320]`. Traps if more than three are given.
    public init(arrayLiteral elements: Int...) { self.init(elements) }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }

    /// The stride of plane `position`, in bytes. Traps outside `0..<count`.
    public subscript(position: Int) -> Int {
        get {
            precondition(position >= 0 && position < count, "plane index out of range")
            switch position {
            case 0: return values.0
            case 1: return values.1
            default: return values.2
            }
        }
        set {
            precondition(position >= 0 && position < count, "plane index out of range")
            switch position {
            case 0: values.0 = newValue
            case 1: values.1 = newValue
            default: values.2 = newValue
            }
        }
    }

    /// Equal when both hold the same strides in the same order.
    public static func == (a: Self, b: Self) -> Bool { a.elementsEqual(b) }
    /// Hashes the strides in order, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) { for s in self { hasher.combine(s) } }
    /// The strides as a list, e.g. `[640, 320, 320]`.
    public var description: String { "[" + map(String.init).joined(separator: ", ") + "]" }
}
