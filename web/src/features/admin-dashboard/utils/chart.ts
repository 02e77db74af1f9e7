/** Colours of the category donut and the lever bars, assigned cyclically (8 colours). */
export const PALETTE = ['#1d4ed8', '#059669', '#d97706', '#7c3aed', '#dc2626', '#0891b2', '#db2777', '#65a30d'] as const

/** The colour of the `index`-th slice. */
export function paletteColor(index: number): string {
  return PALETTE[((index % PALETTE.length) + PALETTE.length) % PALETTE.length]
}

/** A lever name on the bar chart's axis: longer than 15 characters, the first 12 and an ellipsis. */
export function barLabel(name: string): string {
  return name.length > 15 ? `${name.slice(0, 12)}...` : name
}

const axisMillions = new Intl.NumberFormat('es-ES', { maximumFractionDigits: 1 })

/** A chart axis tick in millions of euros: `12,5 M€`. */
export function millionsTick(value: number): string {
  return `${axisMillions.format(value / 1e6)} M€`
}
