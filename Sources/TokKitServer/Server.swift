public enum TokKitServerPlaceholder {}
