package mechsym.falsesharing;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandles;

/**
 * Defines, at run time, {@code public final class mechsym.falsesharing.ContendedLong} with one field
 * {@code @jdk.internal.vm.annotation.Contended public volatile long value} and a public no-argument constructor.
 *
 * <p>Why not a source file: the annotation lives in a package java.base does not export, and javac refuses
 * {@code --add-exports} together with the Makefile's {@code --release 17}. HotSpot's class-file parser recognises
 * the annotation by its name alone, so the class is written here as bytes (a 13-entry constant pool, one field,
 * one constructor) and defined in this package. HotSpot honours it for a class outside the JDK only with
 * {@code -XX:-RestrictContended}; without that flag the field is laid out as if unannotated.
 */
final class ContendedClass {
    static final String NAME = "mechsym.falsesharing.ContendedLong";

    private ContendedClass() {
    }

    static Class<?> define() {
        try {
            return MethodHandles.lookup().defineClass(bytes());
        } catch (IllegalAccessException | IOException e) {
            throw new IllegalStateException("cannot define " + NAME + ": " + e, e);
        }
    }

    private static byte[] bytes() throws IOException {
        final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(buffer);
        out.writeInt(0xCAFEBABE);
        out.writeShort(0);                  // minor
        out.writeShort(61);                 // major: Java 17
        out.writeShort(14);                 // constant pool count (entries 1..13)
        utf8(out, NAME.replace('.', '/'));  // 1
        classRef(out, 1);                   // 2
        utf8(out, "java/lang/Object");      // 3
        classRef(out, 3);                   // 4
        utf8(out, "value");                 // 5
        utf8(out, "J");                     // 6
        utf8(out, "RuntimeVisibleAnnotations");               // 7
        utf8(out, "Ljdk/internal/vm/annotation/Contended;");  // 8
        utf8(out, "<init>");                // 9
        utf8(out, "()V");                   // 10
        utf8(out, "Code");                  // 11
        out.writeByte(12);                  // 12: NameAndType <init> ()V
        out.writeShort(9);
        out.writeShort(10);
        out.writeByte(10);                  // 13: Methodref Object.<init>
        out.writeShort(4);
        out.writeShort(12);
        out.writeShort(0x0031);             // public final super
        out.writeShort(2);                  // this
        out.writeShort(4);                  // super
        out.writeShort(0);                  // interfaces
        out.writeShort(1);                  // fields
        out.writeShort(0x0041);             // public volatile
        out.writeShort(5);
        out.writeShort(6);
        out.writeShort(1);                  // one attribute: @Contended
        out.writeShort(7);
        out.writeInt(6);
        out.writeShort(1);                  // one annotation
        out.writeShort(8);
        out.writeShort(0);                  // no element-value pairs
        out.writeShort(1);                  // methods
        out.writeShort(0x0001);             // public <init>()V
        out.writeShort(9);
        out.writeShort(10);
        out.writeShort(1);                  // one attribute: Code
        out.writeShort(11);
        out.writeInt(17);
        out.writeShort(1);                  // max stack
        out.writeShort(1);                  // max locals
        out.writeInt(5);
        out.writeByte(0x2A);                // aload_0
        out.writeByte(0xB7);                // invokespecial #13
        out.writeShort(13);
        out.writeByte(0xB1);                // return
        out.writeShort(0);                  // exception table
        out.writeShort(0);                  // code attributes
        out.writeShort(0);                  // class attributes
        out.flush();
        return buffer.toByteArray();
    }

    private static void utf8(final DataOutputStream out, final String s) throws IOException {
        out.writeByte(1);
        out.writeUTF(s);
    }

    private static void classRef(final DataOutputStream out, final int name) throws IOException {
        out.writeByte(7);
        out.writeShort(name);
    }
}
