// bench:spawn's fork() child: answers one message, then ends when the parent disconnects.
process.once('message', (m) => process.send(m));
