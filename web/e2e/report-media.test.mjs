// Charts, tables and images of a report in two browsers against the real server: a data file
// uploaded to the Data & Charts panel appears for the co-editor; a chart from the client's real
// savings, a chart from the uploaded file, a table and an image inserted by one browser appear
// live in the other; both insert a chart at once and their documents converge.
import { deflateSync } from 'node:zlib'

import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const at = (path) => (url) => url.pathname === path

function crc32(buf) {
  let c = ~0
  for (const b of buf) {
    c ^= b
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1
  }
  return ~c >>> 0
}

/** A real PNG of `w` x `h` pixels of one colour. */
function png(w, h, [r, g, b]) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4)
    len.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([len, body, crc])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(w, 0)
  ihdr.writeUInt32BE(h, 4)
  ihdr[8] = 8
  ihdr[9] = 2
  const raw = Buffer.alloc((w * 3 + 1) * h)
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) raw.set([r, g, b], y * (w * 3 + 1) + 1 + x * 3)
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))])
}

const CSV = 'Quarter,Capital saved,Exposures\nQ1,1500000,120\nQ2,2250000,135\nQ3,1980000,128\n'

async function openDataPanel(page) {
  const toggle = page.getByRole('button', { name: 'Data & Charts' })
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click()
}

test.describe('report charts, tables and images', () => {
  const env = useServer()

  test('inserted in one browser, they appear live in the other, and concurrent inserts converge', async ({ browser }) => {
    const ana = await newPage(browser, env.server.baseUrl)
    await login(ana, ACCOUNTS.userA)
    await expect(ana).toHaveURL(at('/client/home'))
    const { body } = await apiCall(ana, 'POST', '/api/reports', { name: 'Capital report' })
    const url = `/client/report-generator/edit/${body.id}`
    await ana.goto(url)
    const pablo = await newPage(browser, env.server.baseUrl)
    await login(pablo, ACCOUNTS.approver)
    await expect(pablo).toHaveURL(at('/client/home'))
    await pablo.goto(url)
    const anaIntro = ana.getByRole('textbox', { name: 'Introduction content' })
    const pabloIntro = pablo.getByRole('textbox', { name: 'Introduction content' })
    await expect(anaIntro).toBeVisible()
    await expect(pabloIntro).toBeVisible()

    // A data file uploaded by Ana: measured by the server, listed for Pablo live.
    await openDataPanel(ana)
    await openDataPanel(pablo)
    await ana.getByLabel('Upload data or media').setInputFiles({ name: 'quarters.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) })
    await expect(ana.getByText('CSV file processed')).toBeVisible()
    await expect(ana.getByText('Found 3 rows and 3 columns')).toBeVisible()
    const pabloFiles = pablo.getByRole('list', { name: 'Data and media' })
    await expect(pabloFiles.getByText('quarters.csv')).toBeVisible()
    await expect(pabloFiles.getByText('3 rows, 3 columns')).toBeVisible()
    // Its first rows, read from the server.
    await pablo.getByRole('button', { name: 'Preview quarters.csv' }).click()
    await expect(pablo.getByLabel('Preview of quarters.csv').getByText('2250000')).toBeVisible()
    // A file that is not what its name says is refused with the reason, and nothing is listed.
    await ana.getByLabel('Upload data or media').setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('<svg/>') })
    await expect(ana.locator('[data-status="error"]').getByText('fake.png')).toBeVisible()
    await expect(pabloFiles.getByText('fake.png')).toHaveCount(0)

    // A chart of the client's real savings, inserted where Ana's cursor is.
    await anaIntro.click()
    await ana.keyboard.type('Savings so far.')
    await ana.getByRole('button', { name: 'Insert chart', exact: true }).click()
    const builder = ana.getByRole('dialog', { name: 'Chart Builder' })
    await expect(builder.getByRole('button', { name: 'Insert Chart' })).toBeDisabled()
    await builder.getByLabel('Data source').selectOption({ label: 'Savings by lever' })
    await expect(builder.getByLabel('X axis column')).toHaveValue('Lever')
    await builder.getByLabel('Chart title').fill('Savings by lever')
    await builder.getByRole('radio', { name: /Banking/ }).check()
    await expect(builder.getByTestId('chart-preview').locator('.recharts-bar-rectangle').first()).toBeVisible()
    await screenshot(ana, 'report-media-chart-builder')
    await builder.getByRole('button', { name: 'Insert Chart' }).click()
    await expect(ana.getByText('Chart inserted')).toBeVisible()
    const pabloCharts = pablo.getByTestId('report-chart')
    await expect(pabloCharts).toHaveCount(1)
    await expect(pabloCharts.first().getByText('Savings by lever')).toBeVisible()
    await expect(pabloCharts.first().locator('.recharts-bar-rectangle').first()).toBeVisible()

    // A line chart from the uploaded file.
    await anaIntro.click()
    await ana.getByRole('button', { name: 'Insert chart', exact: true }).click()
    await builder.getByLabel('Data source').selectOption({ label: 'quarters.csv' })
    await expect(builder.getByLabel('X axis column')).toHaveValue('Quarter')
    await builder.getByLabel('Chart type').selectOption('line')
    await builder.getByLabel('Chart title').fill('Capital saved by quarter')
    await builder.getByRole('checkbox', { name: 'Exposures' }).uncheck()
    await builder.getByRole('button', { name: 'Insert Chart' }).click()
    await expect(pabloCharts).toHaveCount(2)
    await expect(pablo.getByText('Capital saved by quarter')).toBeVisible()

    // A table from the uploaded file.
    await ana.getByRole('button', { name: 'Insert table', exact: true }).click()
    const tableBuilder = ana.getByRole('dialog', { name: 'Table Builder' })
    await tableBuilder.getByLabel('Data source').selectOption({ label: 'quarters.csv' })
    await expect(tableBuilder.getByTestId('table-preview').getByText('2250000')).toBeVisible()
    await expect(tableBuilder.getByLabel('Max rows')).toHaveValue('5')
    await tableBuilder.getByLabel('Table width').selectOption('75%')
    await tableBuilder.getByRole('button', { name: 'Insert Table' }).click()
    await expect(ana.getByText('Table inserted')).toBeVisible()
    const pabloTable = pabloIntro.locator('table')
    await expect(pabloTable).toHaveAttribute('data-width', '75%')
    await expect(pabloTable.locator('th').first()).toHaveText('Quarter')
    await expect(pabloTable.locator('tr')).toHaveCount(4)

    // An image, served to the report's readers only.
    await ana.getByRole('button', { name: 'Insert image', exact: true }).click()
    const imageDialog = ana.getByRole('dialog', { name: 'Upload Image' })
    await imageDialog.getByRole('button', { name: 'Upload Image' }).click()
    await expect(ana.getByText('No file selected')).toBeVisible()
    await imageDialog.getByLabel('Image file').setInputFiles({ name: 'bank-logo.png', mimeType: 'image/png', buffer: png(120, 40, [30, 58, 138]) })
    await imageDialog.getByLabel('Image width').selectOption('50%')
    await imageDialog.getByLabel('Caption').fill('Bank A logo')
    await imageDialog.getByRole('button', { name: 'Upload Image' }).click()
    await expect(ana.getByText('Image uploaded')).toBeVisible()
    const pabloImage = pablo.getByTestId('report-image').locator('img')
    await expect(pabloImage).toBeVisible()
    await expect.poll(() => pabloImage.evaluate((img) => img.naturalWidth)).toBe(120)
    await expect(pablo.getByText('Bank A logo')).toBeVisible()
    await screenshot(pablo, 'report-media-co-editor')

    // Both insert a chart at the same moment: both charts land, in the same order for both.
    const open = async (page) => {
      await page.getByRole('textbox', { name: 'Introduction content' }).click()
      await page.keyboard.press('ControlOrMeta+End')
      await page.getByRole('button', { name: 'Insert chart', exact: true }).click()
      const dialog = page.getByRole('dialog', { name: 'Chart Builder' })
      await dialog.getByLabel('Data source').selectOption({ label: 'Savings by month' })
      await expect(dialog.getByLabel('X axis column')).toHaveValue('Month')
      return dialog
    }
    const [anaDialog, pabloDialog] = await Promise.all([open(ana), open(pablo)])
    await anaDialog.getByLabel('Chart title').fill('Ana monthly')
    await pabloDialog.getByLabel('Chart title').fill('Pablo monthly')
    await Promise.all([anaDialog.getByRole('button', { name: 'Insert Chart' }).click(), pabloDialog.getByRole('button', { name: 'Insert Chart' }).click()])
    const titles = (page) => page.getByTestId('report-chart').locator('figcaption').allTextContents()
    await expect(ana.getByTestId('report-chart')).toHaveCount(4)
    await expect(pablo.getByTestId('report-chart')).toHaveCount(4)
    await expect.poll(async () => JSON.stringify(await titles(ana))).toBe(JSON.stringify(await titles(pablo)))
    expect(await titles(ana)).toEqual(expect.arrayContaining(['Ana monthly', 'Pablo monthly', 'Savings by lever', 'Capital saved by quarter']))

    // Editing a chart whose file was deleted says so.
    await ana.getByRole('button', { name: 'Delete quarters.csv' }).click()
    await ana.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click()
    await expect(pabloFiles.getByText('quarters.csv')).toHaveCount(0)
    const quarterChart = ana.getByTestId('report-chart').filter({ hasText: 'Capital saved by quarter' })
    await quarterChart.hover()
    await quarterChart.getByRole('button', { name: /Edit chart/ }).click()
    await expect(ana.getByText('Unable to edit chart')).toBeVisible()
    // The chart still draws from the rows it keeps.
    await expect(pablo.getByTestId('report-chart').filter({ hasText: 'Capital saved by quarter' }).locator('.recharts-line')).toBeVisible()
    await screenshot(ana, 'report-media-editor')

    expect(ana.errors).toEqual([])
    expect(pablo.errors).toEqual([])
    await ana.context().close()
    await pablo.context().close()
  })
})
