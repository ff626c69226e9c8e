import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A receiver on 127.0.0.1: `answer` says what the n-th request (from 1) gets: a status, or
 * 'never' (the request hangs; `abandoned` counts those the sender gave up on). `accepted`: the
 * requests answered 2xx.
 */
export async function notifyReceiver(answer: (n: number) => number | 'never' = () => 200) {
  const accepted: Received[] = [];
  let requests = 0;
  let abandoned = 0;
  const server = createServer((req, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const reply = answer(++requests);
      if (reply === 'never') {
        res.on('close', () => abandoned++);
        return;
      }
      if (reply < 300) accepted.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(reply).end();
    });
  });
  const { port, close } = await listenOnLoopback(server);
  return { close, base: `http://127.0.0.1:${port}`, accepted, requests: () => requests, abandoned: () => abandoned };
}
