import { Area, AreaChart, Bar, BarChart, CartesianGrid, Cell, Legend, Line, LineChart, Pie, PieChart, Tooltip, XAxis, YAxis } from 'recharts'

import { COLOR_SCHEMES, type ChartConfig } from './nodes-model'

/** Axis figures in short form (1.2M, 350K), so large amounts stay readable. */
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 })
const tick = (v: unknown) => (typeof v === 'number' ? compact.format(v) : String(v))
/** A category label shortened to 18 characters (the tooltip keeps it whole). */
const short = (v: unknown) => {
  const s = String(v ?? '')
  return s.length > 18 ? `${s.slice(0, 17)}…` : s
}

type Props = { config: Pick<ChartConfig, 'chartType' | 'title' | 'xColumn' | 'yColumns' | 'rows' | 'width' | 'height' | 'fontSize' | 'fontFamily' | 'colorScheme' | 'showLegend' | 'showGrid'> }

/**
 * One chart drawn with recharts at the size it is stored with (scaled down to the page's width
 * when the page is narrower): bars, lines or areas of the y columns by x, or a pie of the first
 * y column with an outer radius of a quarter of the smaller side.
 */
export function ChartFigure({ config: c }: Props) {
  const colors = COLOR_SCHEMES[c.colorScheme]
  // Many or long categories are tilted so each keeps its label.
  const tilted = c.rows.length > 4 || c.rows.some((r) => String(r[c.xColumn] ?? '').length > 12)
  const axisTick = { fontSize: c.fontSize, fontFamily: c.fontFamily }
  const common = { width: c.width, height: c.height, data: c.rows, margin: { top: 10, right: 20, bottom: 10, left: tilted ? c.fontSize * 5 : 10 } }
  const grid = c.showGrid ? <CartesianGrid strokeDasharray="3 3" /> : null
  const legend = c.showLegend ? <Legend wrapperStyle={{ fontSize: c.fontSize, fontFamily: c.fontFamily }} /> : null
  const axes = (
    <>
      <XAxis dataKey={c.xColumn} tick={axisTick} interval={0} tickFormatter={short} angle={tilted ? -25 : 0} textAnchor={tilted ? 'end' : 'middle'} height={tilted ? c.fontSize * 6 : c.fontSize * 2.5} />
      <YAxis tick={axisTick} tickFormatter={tick} width={c.fontSize * 4} />
    </>
  )
  let chart
  if (c.chartType === 'pie') {
    const y = c.yColumns[0]
    chart = (
      <PieChart width={c.width} height={c.height}>
        <Pie data={c.rows} dataKey={y} nameKey={c.xColumn} outerRadius={Math.min(c.width, c.height) / 4} isAnimationActive={false} label={{ fontSize: c.fontSize, fontFamily: c.fontFamily }}>
          {c.rows.map((_, i) => (
            <Cell key={i} fill={colors[i % colors.length]} />
          ))}
        </Pie>
        <Tooltip />
        {legend}
      </PieChart>
    )
  } else if (c.chartType === 'line') {
    chart = (
      <LineChart {...common}>
        {grid}
        {axes}
        <Tooltip />
        {legend}
        {c.yColumns.map((y, i) => (
          <Line key={y} dataKey={y} stroke={colors[i % colors.length]} isAnimationActive={false} />
        ))}
      </LineChart>
    )
  } else if (c.chartType === 'area') {
    chart = (
      <AreaChart {...common}>
        {grid}
        {axes}
        <Tooltip />
        {legend}
        {c.yColumns.map((y, i) => (
          <Area key={y} dataKey={y} stroke={colors[i % colors.length]} fill={colors[i % colors.length]} fillOpacity={0.3} isAnimationActive={false} />
        ))}
      </AreaChart>
    )
  } else {
    chart = (
      <BarChart {...common}>
        {grid}
        {axes}
        <Tooltip />
        {legend}
        {c.yColumns.map((y, i) => (
          <Bar key={y} dataKey={y} fill={colors[i % colors.length]} isAnimationActive={false} />
        ))}
      </BarChart>
    )
  }
  return (
    <figure className="report-chart" style={{ fontFamily: c.fontFamily }}>
      {c.title && (
        <figcaption className="mb-1 font-semibold text-slate-900" style={{ fontSize: c.fontSize + 2 }}>
          {c.title}
        </figcaption>
      )}
      <div className="report-chart-canvas" style={{ width: c.width, maxWidth: '100%', overflowX: 'auto' }}>
        {chart}
      </div>
    </figure>
  )
}
