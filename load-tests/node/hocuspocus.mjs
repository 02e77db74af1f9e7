// Hocuspocus 4 with its defaults and no extensions (in memory), on PORT, for side-by-side figures.
import { Server } from '@hocuspocus/server'

const port = Number(process.env.PORT || 1234)
const server = new Server({ port, address: '127.0.0.1', quiet: true })
await server.listen()
console.log(`listening on http://127.0.0.1:${port}`)
