// The y-websocket reference server (@y/websocket-server 0.1.1, the last release on yjs 13), in
// memory, on PORT, for side-by-side figures.
import http from 'node:http'

import { setupWSConnection } from '@y/websocket-server/utils'
import ws from 'ws'

const port = Number(process.env.PORT || 1234)
const wss = new ws.Server({ noServer: true })
wss.on('connection', setupWSConnection)
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain' })
  res.end('okay')
})
server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req)))
server.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`))
