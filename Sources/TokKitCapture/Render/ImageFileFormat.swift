/// The image file formats renderers write their snapshots in.
public enum ImageFileFormat: Sendable, Hashable, CaseIterable {
    /// Binary PGM (`P5`), 8-bit gray.
    case pgm
    /// PNG, 8-bit grayscale (colour type 0).
    case png
    /// PNG, 24-bit RGB (colour type 2).
    case pngRGB
}
