package io.sluice.server.http;

/**
 * A request whose URL or form body cannot be decoded (a bad percent-escape such as {@code %ZZ}). The
 * server answers 400 ({@code bad_data} JSON under {@code /api/}) and logs nothing: it is the client's
 * mistake, not a failure. Unchecked, so {@link RequestParams#of} stays usable everywhere.
 */
public final class MalformedRequestException extends RuntimeException {
    public MalformedRequestException(String message) {
        super(message, null, false, false);
    }

    /**
     * The error for {@code text} that a decoder refused: names the first bad escape, as Go's
     * {@code net/url} does ({@code invalid URL escape "%ZZ"}), or the decoder's own words.
     */
    static MalformedRequestException of(String where, String text, IllegalArgumentException cause) {
        for (int i = text.indexOf('%'); i >= 0; i = text.indexOf('%', i + 1)) {
            if (i + 2 >= text.length() || Character.digit(text.charAt(i + 1), 16) < 0
                    || Character.digit(text.charAt(i + 2), 16) < 0) {
                String escape = text.substring(i, Math.min(text.length(), i + 3));
                return new MalformedRequestException("invalid URL escape \"" + escape + "\" in the " + where);
            }
        }
        return new MalformedRequestException("cannot decode the " + where + ": " + cause.getMessage());
    }
}
