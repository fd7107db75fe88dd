package io.sluice.server.http;

/**
 * A route's way to answer with an error reply from deep inside its work (a bad parameter, a limit):
 * the server sends {@link #reply()} as if the route had returned it. Not logged: it is an answer,
 * not a failure.
 */
public class ReplyException extends Exception {
    private final transient Reply reply;

    public ReplyException(Reply reply, String message) {
        super(message, null, false, false); // no stack trace: this is control flow of a request, not a bug
        this.reply = reply;
    }

    public Reply reply() {
        return reply;
    }
}
