; inherits: typescript
; TSX is TypeScript with JSX; the same definitions and references apply.
