/// A rectangle of a composed archive's canvas, in pixels from the top left corner.
///
/// The layout keeps every edge on an even pixel, so that a rectangle covers whole 2x2 chroma blocks of an I420
/// picture.
public struct CanvasRect: Hashable, Sendable, CustomStringConvertible {
    /// Left edge.
    public var x: Int
    /// Top edge.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// A rectangle at (`x`, `y`) of `width` x `height` pixels.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Whether the point lies inside.
    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && px < x + width && py >= y && py < y + height
    }

    public var description: String { "\(width)x\(height)@(\(x),\(y))" }
}

/// Where each stream's picture goes on a composed archive's canvas: a grid that grows with the number of streams
/// (1: the whole canvas; 2: side by side; 3-4: 2x2; 5-9: 3x3), cells filled row by row, each picture scaled to fit
/// its cell with its aspect kept and centred (the rest stays black: letterboxed or pillarboxed).
///
/// A pure value computation, no I/O: the composer recomputes it whenever the set of streams changes.
public enum CompositionLayout {
    /// The most streams shown; later streams are left out of the picture (their audio is still mixed).
    public static let maximumTiles = 9

    /// Columns and rows of the grid for `count` streams (`(0, 0)` for none).
    public static func grid(for count: Int) -> (columns: Int, rows: Int) {
        switch count {
        case ...0: (0, 0)
        case 1: (1, 1)
        case 2: (2, 1)
        case 3...4: (2, 2)
        default: (3, 3)
        }
    }

    /// The cells of the first `min(count, maximumTiles)` streams on a `width` x `height` canvas, row by row.
    /// Cells tile the canvas without gaps or overlap; every edge is even.
    public static func cells(count: Int, width: Int, height: Int) -> [CanvasRect] {
        let (columns, rows) = grid(for: count)
        guard columns > 0, width >= 2 * columns, height >= 2 * rows else { return [] }
        func edge(_ i: Int, of n: Int, _ length: Int) -> Int { i == n ? length : (i * length / n) & ~1 }
        var result: [CanvasRect] = []
        result.reserveCapacity(min(count, maximumTiles))
        for index in 0..<min(count, maximumTiles) {
            let (column, row) = (index % columns, index / columns)
            let x = edge(column, of: columns, width), y = edge(row, of: rows, height)
            result.append(CanvasRect(x: x, y: y, width: edge(column + 1, of: columns, width) - x,
                                     height: edge(row + 1, of: rows, height) - y))
        }
        return result
    }

    /// A `width` x `height` picture scaled to fit `cell` with its aspect kept, centred; even edges, at least 2x2.
    /// `nil` for a picture with no pixels.
    public static func fit(width: Int, height: Int, into cell: CanvasRect) -> CanvasRect? {
        guard width > 0, height > 0, cell.width >= 2, cell.height >= 2 else { return nil }
        // Compare cross products (integers): the side that limits the scale is the one whose ratio is smaller.
        var w: Int, h: Int
        if cell.width * height <= cell.height * width {
            w = cell.width
            h = (cell.width * height + width / 2) / width
        } else {
            h = cell.height
            w = (cell.height * width + height / 2) / height
        }
        w = max(2, min(cell.width, w) & ~1)
        h = max(2, min(cell.height, h) & ~1)
        return CanvasRect(x: cell.x + ((cell.width - w) / 2 & ~1), y: cell.y + ((cell.height - h) / 2 & ~1),
                          width: w, height: h)
    }
}
